"""The learned section's training from a cold cache: CPU seconds and peak memory (``ru_maxrss``) of a fresh process
that imports the model and trains it at the default config, as a first render of the section does. The budget
(issue 29): 60 s of CPU and 300 MB. ``python -m bench.learned`` prints the row and adds it to
``bench/results.json`` as ``learned_training``; ``python -m bench`` measures it too.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time

from bench.report import keep

BUDGET_CPU_S, BUDGET_PEAK_MB = 60, 300


def child() -> None:
    """Train once here and print the CPU seconds (user + system, every thread) and this process's peak memory."""
    from attn_math import learned

    started = time.process_time()
    training = learned.train(**learned.DEFAULTS)
    cpu = time.process_time() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux
    print(json.dumps({"cpu_s": round(cpu, 1), "peak_mb": round(peak_mb, 1), "steps": int(training.steps[-1]),
                      "previous_token_score": round(float(training.previous_token_scores[-1].max()), 3),
                      "induction_score": round(float(training.induction_scores[-1].max()), 3)}))


def measure() -> dict:
    """The child's numbers, with the budget and whether both are met."""
    result = subprocess.run([sys.executable, "-m", "bench.learned", "--child"], capture_output=True, text=True,
                            check=True)
    row = json.loads(result.stdout.strip().splitlines()[-1])
    row.update(budget_cpu_s=BUDGET_CPU_S, budget_peak_mb=BUDGET_PEAK_MB,
               met=row["cpu_s"] <= BUDGET_CPU_S and row["peak_mb"] <= BUDGET_PEAK_MB)
    print(row, flush=True)
    return row


if __name__ == "__main__":
    if sys.argv[1:] == ["--child"]:
        child()
    else:
        keep("learned_training", measure())
