"""Where the project's files are: the repository, the build folder (BUILD_DIR) and the data
(TOKENIZER_DATA_DIR), as for build/benches."""

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("BUILD_DIR", REPO_ROOT / "build")).resolve()
DATA_DIR = Path(os.environ.get("TOKENIZER_DATA_DIR", REPO_ROOT / "data"))
