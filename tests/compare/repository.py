"""Paths of the tests of scripts/compare. Importing this module makes `benchcompare` (in
scripts/) importable."""

import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
SCRIPTS_DIR = REPO_ROOT / "scripts"
COMPARE_SCRIPT = SCRIPTS_DIR / "compare"
GOLDEN_DIR = Path(__file__).resolve().parent / "data"

if str(SCRIPTS_DIR) not in sys.path:
    sys.path.insert(0, str(SCRIPTS_DIR))
