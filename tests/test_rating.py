"""The FIBS rating formula (backgammon/rating.py), checked against hand-worked examples."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backgammon.errors import BackgammonError
from backgammon.rating import Rating, rate, win_probability

ratings = st.floats(min_value=500.0, max_value=2500.0, allow_nan=False)
experiences = st.integers(min_value=0, max_value=5000)
lengths = st.integers(min_value=1, max_value=25)
#: Ratings to the hundredth, as FIBS shows them: two ratings a few ulps apart give exactly
#: 0.5 in floating point (the difference is below the spacing of doubles near 0.5).
shown_ratings = st.integers(min_value=50_000, max_value=250_000).map(lambda c: c / 100)
players = st.builds(Rating, ratings, experiences)


def test_a_new_rating_is_1500_with_no_experience() -> None:
    assert Rating() == Rating(1500.0, 0)
    assert Rating().k == 5.0


def test_equal_experienced_players_one_point_match_move_two_points() -> None:
    # D = 0: P = 1 / (10**0 + 1) = 0.5; K = max(1, 5 - 500/100) = 1;
    # change = 4 * 1 * sqrt(1) * 0.5 = 2.00.
    winner, loser = rate(Rating(1500, 500), Rating(1500, 500), 1)
    assert winner.rating == pytest.approx(1502.00, abs=1e-9)
    assert loser.rating == pytest.approx(1498.00, abs=1e-9)
    assert (winner.experience, loser.experience) == (501, 501)


def test_newcomers_move_five_times_as_fast() -> None:
    # K = max(1, 5 - 0/100) = 5; change = 4 * 5 * 1 * 0.5 = 10.00.
    winner, loser = rate(Rating(1500, 0), Rating(1500, 0), 1)
    assert winner.rating == pytest.approx(1510.00, abs=1e-9)
    assert loser.rating == pytest.approx(1490.00, abs=1e-9)
    assert (winner.experience, loser.experience) == (1, 1)


def test_each_side_uses_its_own_k() -> None:
    # A newcomer (K = 5) beats a veteran (K = 1) of equal rating, n = 1:
    # the newcomer gains 4 * 5 * 0.5 = 10, the veteran loses 4 * 1 * 0.5 = 2.
    winner, loser = rate(Rating(1500, 0), Rating(1500, 800), 1)
    assert winner.rating == pytest.approx(1510.0)
    assert loser.rating == pytest.approx(1498.0)


def test_an_underdog_win_at_d_200_in_a_5_point_match() -> None:
    # Winner 1500 beats loser 1700, both experienced (K = 1), n = 5.
    # D * sqrt(n) / 2000 = 200 * 2.2360680 / 2000 = 0.2236068
    # 10 ** 0.2236068 = 1.6734271; underdog P = 1 / 2.6734271 = 0.3740517
    # P' (the favourite, who lost, would have won) = 1 - 0.3740517 = 0.6259483
    # change = 4 * 1 * sqrt(5) * 0.6259483 = 8.9442719 * 0.6259483 = 5.5986516
    assert win_probability(1500, 1700, 5) == pytest.approx(0.3740517, abs=1e-7)
    assert win_probability(1700, 1500, 5) == pytest.approx(0.6259483, abs=1e-7)
    winner, loser = rate(Rating(1500, 1000), Rating(1700, 1000), 5)
    assert winner.rating == pytest.approx(1505.5986516, abs=1e-6)
    assert loser.rating == pytest.approx(1694.4013484, abs=1e-6)
    assert (winner.experience, loser.experience) == (1005, 1005)


def test_a_favourite_win_gains_less() -> None:
    # Same match, the favourite wins: P' = 0.3740517, change = 8.9442719 * 0.3740517 = 3.3456.
    winner, loser = rate(Rating(1700, 1000), Rating(1500, 1000), 5)
    assert winner.rating - 1700 == pytest.approx(3.3456204, abs=1e-6)
    assert 1500 - loser.rating == pytest.approx(3.3456204, abs=1e-6)


def test_experience_grows_by_the_match_length() -> None:
    winner, loser = rate(Rating(1500, 37), Rating(1600, 0), 7)
    assert (winner.experience, loser.experience) == (44, 7)


@pytest.mark.parametrize(
    ("experience", "k"),
    [(0, 5.0), (50, 4.5), (100, 4.0), (250, 2.5), (399, 1.01), (400, 1.0), (401, 1.0), (10_000, 1.0)],
)
def test_k_falls_with_experience_and_floors_at_one_from_400(experience: int, k: float) -> None:
    assert Rating(1500, experience).k == pytest.approx(k)


@pytest.mark.parametrize("length", [0, -3, True, 2.0])
def test_a_match_length_must_be_a_positive_whole_number(length: object) -> None:
    with pytest.raises(BackgammonError, match="match length"):
        rate(Rating(), Rating(), length)  # type: ignore[arg-type]
    with pytest.raises(BackgammonError, match="match length"):
        win_probability(1500, 1500, length)  # type: ignore[arg-type]


def test_ratings_are_frozen() -> None:
    with pytest.raises(AttributeError):
        Rating().rating = 1600  # type: ignore[misc]


@given(ratings, ratings, lengths)
def test_the_two_sides_probabilities_sum_to_one(a: float, b: float, n: int) -> None:
    assert win_probability(a, b, n) + win_probability(b, a, n) == pytest.approx(1.0, abs=1e-12)
    assert 0.0 < win_probability(a, b, n) < 1.0


@given(shown_ratings, shown_ratings, lengths)
def test_the_higher_rating_is_the_favourite_and_more_so_in_longer_matches(a: float, b: float, n: int) -> None:
    p = win_probability(a, b, n)
    if a > b:
        assert p > 0.5
        assert win_probability(a, b, n + 1) >= p
    elif a < b:
        assert p < 0.5
    else:
        assert p == 0.5


@given(players, players, lengths)
def test_the_winner_never_loses_points_and_the_loser_never_gains(w: Rating, l: Rating, n: int) -> None:
    winner, loser = rate(w, l, n)
    assert winner.rating > w.rating
    assert loser.rating < l.rating
    assert winner.experience == w.experience + n and loser.experience == l.experience + n


@given(ratings, ratings, experiences, lengths)
def test_the_changes_sum_to_zero_when_both_k_are_equal(a: float, b: float, exp: int, n: int) -> None:
    winner, loser = rate(Rating(a, exp), Rating(b, exp), n)
    assert (winner.rating - a) + (loser.rating - b) == pytest.approx(0.0, abs=1e-9)


@given(ratings, ratings, experiences, lengths)
def test_the_change_matches_the_formula(a: float, b: float, exp: int, n: int) -> None:
    winner, _ = rate(Rating(a, exp), Rating(b, exp), n)
    k = max(1.0, 5.0 - exp / 100)
    d = abs(a - b)
    underdog = 1 / (10 ** (d * math.sqrt(n) / 2000) + 1)
    upset = underdog if b < a else 1 - underdog
    assert winner.rating - a == pytest.approx(4 * k * math.sqrt(n) * upset)


@given(ratings, lengths)
def test_equal_ratings_swap_symmetrically(a: float, n: int) -> None:
    w1, l1 = rate(Rating(a, 500), Rating(a, 500), n)
    assert w1.rating - a == pytest.approx(a - l1.rating)
    assert w1.rating - a == pytest.approx(2.0 * math.sqrt(n))
