"""``python -m bench.uhd``: only the 2160p60 clips of ``python -m bench`` (``UHD_CLIPS``), their rows written into
``bench/results.json`` as ``uhd_peaks`` with their targets printed: the check after a change to what a section's
worker holds, without the whole benchmark (the clips take about 15 minutes on 2 cores).
"""

import json
import tempfile
from pathlib import Path

from bench.__main__ import uhd_peaks
from bench.report import RESULTS, UHD_COLUMNS, table, uhd_checks

if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        rows = uhd_peaks(Path(folder))
    results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    RESULTS.write_text(json.dumps(results | {"uhd_peaks": rows}, indent=2, ensure_ascii=False) + "\n")
    print(table(rows, UHD_COLUMNS))
    print("\n".join(f"{name}: {measured} (wanted {wanted}): {'met' if met else 'NOT met'}"
                    for name, measured, wanted, met in uhd_checks(rows)))
