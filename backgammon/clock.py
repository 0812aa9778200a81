"""Time controls and the match clock: :class:`TimeControl`, :data:`PRESETS`, :class:`Clock`.

Pure: nothing here reads the real clock; every time is passed in as float seconds since the
epoch. Every seat that must act has its clock running. A seat that starts to act gets
``delay`` free seconds, then its reserve drains; when it stops acting the unused delay is
lost. A seat still to act after an :meth:`Clock.update` keeps its running period (its delay
is not renewed). A seat whose reserve runs out has lost on time (:meth:`Clock.flagged`).

>>> from backgammon.clock import PRESETS, Clock
>>> blitz = PRESETS["blitz"]
>>> blitz.delay, blitz.reserve(3)
(8.0, 60.0)
>>> clock = Clock(blitz, ["white", "black"], 3)
>>> clock.update(["white"], now=1000.0)       # white to act from t = 1000
>>> clock.left("white", 1005.0)                # 5 s into the delay
(3.0, 60.0)
>>> clock.left("white", 1018.0)                # delay spent, 10 s of reserve used
(0.0, 50.0)
>>> clock.update(["black"], now=1018.0)        # white played; black to act
>>> clock.reserve["white"], clock.deadline()   # black runs out at 1018 + 8 + 60
(50.0, 1086.0)
>>> clock.flagged(1085.0), clock.flagged(1086.0)
(None, 'black')
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import BackgammonError

__all__ = ["TimeControl", "PRESETS", "Clock"]


@dataclass(frozen=True)
class TimeControl:
    """A time control: ``delay`` free seconds each time a seat starts to act, and a reserve
    of ``per_point`` seconds per match point.

    >>> TimeControl.from_dict(PRESETS["rapid"].to_dict()) == PRESETS["rapid"]
    True
    """

    name: str
    delay: float
    per_point: float

    def __post_init__(self) -> None:
        if not self.name:
            raise BackgammonError("a time control needs a name (such as 'blitz')")
        if not self.delay >= 0 or not self.per_point > 0:
            raise BackgammonError(
                f"time control {self.name!r}: the delay must be 0 s or more and the reserve per "
                f"point more than 0 s; got delay {self.delay!r}, per point {self.per_point!r}"
            )

    def reserve(self, length: int) -> float:
        """The reserve each seat starts a match to ``length`` points with."""
        if length < 1:
            raise BackgammonError(f"a clock needs a match of 1 point or more; got length {length}")
        return self.per_point * length

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: ``{"name", "delay", "per_point"}``."""
        return {"name": self.name, "delay": self.delay, "per_point": self.per_point}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TimeControl:
        """Inverse of :meth:`to_dict`."""
        try:
            name, delay, per_point = str(data["name"]), float(data["delay"]), float(data["per_point"])
        except (KeyError, TypeError, ValueError) as e:
            raise BackgammonError(f"a time control needs name, delay and per_point; got {data!r}") from e
        return cls(name, delay, per_point)


PRESETS: dict[str, TimeControl | None] = {
    "none": None,
    "blitz": TimeControl("blitz", 8.0, 20.0),
    "rapid": TimeControl("rapid", 10.0, 60.0),
    "classic": TimeControl("classic", 15.0, 180.0),
}
"""The time controls a table may choose, by name (``"none"``: no clock)."""


class Clock:
    """The clocks of a match's seats (mutable). Times are float seconds since the epoch.

    * :attr:`reserve` — what is left of each seat's reserve, charged up to :attr:`since`
      (below 0 once a seat has overrun it; :meth:`left` and :meth:`view` show 0 then);
    * :attr:`running` — the seats whose clock runs (every seat that must act), in order;
    * :attr:`since` — when they were last charged (``None`` when no clock runs);
    * :attr:`delay_left` — each running seat's delay left at :attr:`since`.
    """

    def __init__(self, control: TimeControl, seats: Sequence[str], length: int) -> None:
        if not seats or len(set(seats)) != len(seats):
            raise BackgammonError(f"a clock needs one or more distinct seats; got {list(seats)!r}")
        self.control = control
        self.seats: tuple[str, ...] = tuple(seats)
        self.length = length
        start = control.reserve(length)
        self.reserve: dict[str, float] = {seat: start for seat in self.seats}
        self.running: tuple[str, ...] = ()
        self.since: float | None = None
        self.delay_left: dict[str, float] = {}

    def __repr__(self) -> str:
        return f"Clock({self.control.name!r}, reserve={self.reserve!r}, running={self.running!r}, since={self.since!r})"

    def _charge(self, now: float) -> None:
        """Charge every running seat for the time from :attr:`since` to ``now``."""
        if self.since is None:
            return
        elapsed = max(0.0, now - self.since)
        for seat in self.running:
            free = min(self.delay_left[seat], elapsed)
            self.delay_left[seat] -= free
            self.reserve[seat] -= elapsed - free
        self.since = max(now, self.since)

    def update(self, to_act: Iterable[str], now: float) -> None:
        """Charge the running seats up to ``now``, then run the clocks of ``to_act`` from
        ``now``: a seat that starts to act gets a fresh delay, one still to act keeps its
        period, one that stops loses what is left of its delay.

        >>> c = Clock(PRESETS["blitz"], ["a", "b"], 1)
        >>> c.update(["a", "b"], 0.0); c.update(["a"], 5.0)   # b stops; a keeps its period
        >>> c.left("a", 10.0), c.left("b", 10.0)
        ((0.0, 18.0), (8.0, 20.0))
        """
        wanted = list(dict.fromkeys(to_act))
        unknown = [seat for seat in wanted if seat not in self.reserve]
        if unknown:
            raise BackgammonError(f"no clock for seat(s) {unknown!r}; the clock's seats are {list(self.seats)!r}")
        self._charge(now)
        if self.since is None:
            self.since = now
        self.delay_left = {seat: self.delay_left.get(seat, self.control.delay) for seat in wanted}
        self.running = tuple(wanted)
        if not wanted:
            self.since = None

    def stop(self, now: float) -> None:
        """Charge the running seats up to ``now`` and stop every clock (the match is over)."""
        self.update((), now)

    def left(self, seat: str, now: float) -> tuple[float, float]:
        """``(delay left, reserve left)`` of ``seat`` at ``now``. A seat not running shows the
        full delay it gets when it next starts to act."""
        if seat not in self.reserve:
            raise BackgammonError(f"no clock for seat {seat!r}; the clock's seats are {list(self.seats)!r}")
        if seat not in self.running or self.since is None:
            return (self.control.delay, max(0.0, self.reserve[seat]))
        elapsed = max(0.0, now - self.since)
        delay = self.delay_left[seat]
        return (max(0.0, delay - elapsed), max(0.0, self.reserve[seat] - max(0.0, elapsed - delay)))

    def _runs_out(self, seat: str) -> float:
        assert self.since is not None
        return self.since + self.delay_left[seat] + self.reserve[seat]

    def deadline(self) -> float | None:
        """When the first running seat runs out of time (``None``: no clock runs)."""
        if self.since is None or not self.running:
            return None
        return min(self._runs_out(seat) for seat in self.running)

    def flagged(self, now: float) -> str | None:
        """The running seat out of time at ``now`` (the one that ran out first), or ``None``."""
        deadline = self.deadline()
        if deadline is None or now < deadline:
            return None
        return next(seat for seat in self.running if self._runs_out(seat) == deadline)

    def view(self, now: float) -> dict[str, Any]:
        """The protocol's clock object: what was left of each seat's time at ``at``
        (milliseconds since the epoch), and which clocks run from there.

        >>> c = Clock(PRESETS["blitz"], ["white", "black"], 1)
        >>> c.update(["black"], 100.0)
        >>> c.view(110.5)["seats"]["black"], c.view(110.5)["at"], c.view(110.5)["running"]
        ({'delay': 0.0, 'reserve': 17.5}, 110500, ['black'])
        """
        seats: dict[str, dict[str, float]] = {}
        for seat in self.seats:
            delay, reserve = self.left(seat, now)
            seats[seat] = {"delay": delay, "reserve": reserve}
        return {
            "control": self.control.to_dict(),
            "running": list(self.running),
            "at": int(round(now * 1000)),
            "seats": seats,
        }

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of the whole state (:meth:`from_dict` restores it exactly)."""
        return {
            "control": self.control.to_dict(),
            "seats": list(self.seats),
            "length": self.length,
            "reserve": dict(self.reserve),
            "running": list(self.running),
            "since": self.since,
            "delay_left": dict(self.delay_left),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Clock:
        """Inverse of :meth:`to_dict`."""
        try:
            clock = cls(TimeControl.from_dict(data["control"]), list(data["seats"]), int(data["length"]))
            reserve = {str(seat): float(left) for seat, left in data["reserve"].items()}
            running = tuple(str(seat) for seat in data["running"])
            since = None if data["since"] is None else float(data["since"])
            delay_left = {str(seat): float(left) for seat, left in data["delay_left"].items()}
        except (KeyError, TypeError, AttributeError, ValueError) as e:
            if isinstance(e, BackgammonError):
                raise
            raise BackgammonError(f"not a saved clock ({e!r}): {data!r}") from e
        if set(reserve) != set(clock.seats) or set(delay_left) != set(running) or not set(running) <= set(clock.seats):
            raise BackgammonError(f"a saved clock's seats do not agree: {data!r}")
        if (since is None) != (not running):
            raise BackgammonError(f"a saved clock runs seats only with a start time: {data!r}")
        clock.reserve, clock.running, clock.since, clock.delay_left = reserve, running, since, delay_left
        return clock
