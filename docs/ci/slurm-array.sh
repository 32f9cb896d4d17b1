#!/bin/bash
# A benchmark run as a Slurm job array: task I of N runs `--shard auto`, which reads its shard from
# SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_MIN and SLURM_ARRAY_TASK_COUNT (one contiguous range, step
# 1). Submit from the checkout on a shared filesystem; merge with slurm-merge.sh (docs/scale.md).
#SBATCH --job-name=optbench
#SBATCH --array=0-3
#SBATCH --cpus-per-task=4
#SBATCH --mem=16G
#SBATCH --time=12:00:00
#SBATCH --output=runs/slurm-%A_%a.out
set -u
cd "${SLURM_SUBMIT_DIR:-.}"
shard=$((SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN + 1))
.venv/bin/python -m pytest --model=claude --shard auto -n "${SLURM_CPUS_PER_TASK:-4}" --report-dir="runs/shard-${shard}" --resume
status=$?
# pytest exits 1 when some cases failed: a scored shard; anything else is a real failure.
[ "$status" -le 1 ]
