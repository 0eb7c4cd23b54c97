"""The Python environment of the peers: a venv under the build folder with their packages."""

import importlib.util
import os
import subprocess
import sys
import venv
from pathlib import Path

from .locations import BUILD_DIR

VENV_DIR = BUILD_DIR / "peers-venv"
# torch is the large one (the PyPI wheel pulls in the CUDA libraries, a few GB); it is needed only
# for the torch/sdpa benchmarks.
# Module -> PyPI package.
PEER_MODULES = {"tiktoken": "tiktoken", "tokenizers": "tokenizers", "gigatoken": "gigatoken",
                "fastokens": "fastokens", "quicktok": "quicktok-v1", "wordchipper": "wordchipper",
                "bpe_openai": "bpe-openai", "kitoken": "kitoken", "torch": "torch"}
# Set in the environment of the re-executed script, so that a venv without the modules fails
# instead of re-executing forever.
REEXEC_MARK = "TOKBENCH_PEERS_REEXEC"


def missing_modules():
    # Found, not imported: importing torch takes seconds.
    return [name for name in PEER_MODULES if importlib.util.find_spec(name) is None]


def venv_python():
    return VENV_DIR / "bin" / "python"


def ensure_modules(setup):
    """Returns the missing optional modules, after re-executing in the venv if that helps."""
    missing = missing_modules()
    if not missing:
        return []
    if os.environ.get(REEXEC_MARK):
        if "tiktoken" in missing:
            sys.exit(f"error: {venv_python()} lacks {', '.join(missing)}; run scripts/peers --setup")
        return missing
    if setup:
        try:
            if not venv_python().exists():
                print(f"creating {VENV_DIR}", file=sys.stderr)
                venv.create(VENV_DIR, with_pip=True)
            packages = list(PEER_MODULES.values())
            print(f"installing {' '.join(packages)} into {VENV_DIR}", file=sys.stderr)
            subprocess.run([str(venv_python()), "-m", "pip", "install", "--quiet", *packages], check=True)
        except (OSError, subprocess.CalledProcessError) as e:
            sys.exit(f"error: cannot set up {VENV_DIR} ({e}); on Debian, python3-venv provides venv with pip")
    if venv_python().exists() and Path(sys.prefix).resolve() != VENV_DIR.resolve():
        os.environ[REEXEC_MARK] = "1"
        os.execv(str(venv_python()), [str(venv_python()), str(Path(sys.argv[0]).resolve()), *sys.argv[1:]])
    if "tiktoken" in missing:
        sys.exit("error: the tiktoken module is missing; run scripts/peers --setup")
    return missing
