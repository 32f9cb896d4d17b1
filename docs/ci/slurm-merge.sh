#!/bin/bash
# Merges the shard run folders of slurm-array.sh into one run (docs/scale.md).
#SBATCH --job-name=optbench-merge
#SBATCH --cpus-per-task=1
#SBATCH --time=00:30:00
#SBATCH --output=runs/slurm-merge-%j.out
set -eu
cd "${SLURM_SUBMIT_DIR:-.}"
.venv/bin/python -m benchmark merge runs/shard-1 runs/shard-2 runs/shard-3 runs/shard-4 --out runs/merged
