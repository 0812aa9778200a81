#!/bin/sh
# README figures with the shipped network, one after another (2 cores)
cd /work/main
P="env PYTHONPATH=. .venv/bin/python"
R=/tmp/rm
$P $R/examples.py > $R/examples.txt 2>&1
$P benchmarks/judge.py --bots expert worldclass grandmaster gnubg0 gnubg1 gnubg2 > $R/judge.txt 2>&1
$P benchmarks/strength.py expert gnubg --games 4000 --workers 2 --seed 191 > $R/expert191.txt 2>&1
$P benchmarks/strength.py expert gnubg --games 4000 --workers 2 --seed 201 > $R/expert201.txt 2>&1
$P benchmarks/strength.py worldclass gnubg --games 2000 --workers 2 > $R/worldclass.txt 2>&1
$P benchmarks/strength.py expert pubeval --games 2000 --workers 2 > $R/pubeval.txt 2>&1
$P benchmarks/cube.py --positions 400 --seed 1 > $R/cube.txt 2>&1
$P benchmarks/cubeful.py expert expert-nocube --games 4000 --workers 1 > $R/cubeful.txt 2>&1
$P benchmarks/matchplay.py worldclass expert --length 5 7 --workers 2 > $R/match57.txt 2>&1
$P benchmarks/matchplay.py worldclass expert --length 5 --matches 200 --seed 2 > $R/match200.txt 2>&1
$P benchmarks/matchplay.py worldclass expert --length 5 7 --matches 40 --workers 1 > $R/match40.txt 2>&1
$P benchmarks/strength.py grandmaster gnubg1 --games 1000 --workers 2 > $R/grandmaster.txt 2>&1
echo ALLDONE > $R/done
