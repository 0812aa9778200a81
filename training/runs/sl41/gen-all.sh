#!/bin/sh
# sl41 (session 30): 1M-position trajectory files of four networks' games, pruned
# (training/runs/sl40/prune-h128.npz), two files a network, one after another.
set -e
P=training/runs/sl40/prune-h128.npz
G="env PYTHONPATH=. .venv/bin/python training/runs/sl26/gen.py 1000000"
$G 0 training/runs/sl41/data-traj-36a-a.npz backgammon/engine/weights/expert.npz 371 $P
$G 0 training/runs/sl41/data-traj-31s-a.npz training/runs/sl31s/best.npz 321 $P
$G 0 training/runs/sl41/data-traj-29a-a.npz training/runs/sl29a/best.npz 301 $P
$G 0 training/runs/sl41/data-traj-27-a.npz training/runs/sl27/best.npz 291 $P
$G 250 training/runs/sl41/data-traj-36a-b.npz backgammon/engine/weights/expert.npz 371 $P
$G 250 training/runs/sl41/data-traj-31s-b.npz training/runs/sl31s/best.npz 321 $P
$G 250 training/runs/sl41/data-traj-29a-b.npz training/runs/sl29a/best.npz 301 $P
$G 250 training/runs/sl41/data-traj-27-b.npz training/runs/sl27/best.npz 291 $P
