"""The judge (``benchmarks/judge.py``: gnubg 2 ply's verdict on 5,000 decisions of
gnubg-nn self-play) on its race decisions alone (no contact, bear-offs included), session 29.

    python training/runs/sl39/race_judge.py [BOT ...] [--reference expert]
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
import judge as J  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("bots", nargs="*", default=["expert", "gnubg0", "gnubg1"])
ap.add_argument("--reference", default="expert")
a = ap.parse_args()
decisions = [d for d in J.decisions_of(J.read_set()) if d.legal.origin.is_race()]
print(f"{len(decisions)} race decisions of the judge set", flush=True)
for line in J.report(J.judge(decisions, a.bots), a.reference):
    print(line, flush=True)
