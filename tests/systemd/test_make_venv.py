"""The install's venv keeps the system's numpy: built as install.sh builds it, offline.

A stand-in "system" Python is made in a temporary folder (the real
interpreter with its standard library, but its own site-packages), holding
an older numpy the way Debian's python3-numpy ships it and a simplejpeg
that, like the real one, fails against any other numpy ABI. A local wheel
folder offers what PyPI would: numpy 2 and two OpenCV wheels, the newer
one requiring numpy 2. ``systemd/make-venv`` must leave the system numpy
alone; plain ``pip install`` (the old install) must not, which shows the
test can tell the difference.
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

SYSTEMD = Path(__file__).resolve().parents[2] / "systemd"
SYSTEM_NUMPY = "1.24.2"

SIMPLEJPEG = """
import numpy
if not numpy.__version__.startswith("1."):
    raise ValueError(
        "numpy.dtype size changed, may indicate binary incompatibility. "
        "Expected 96 from C header, got 88 from PyObject"
    )
"""


def _wheel(folder: Path, name: str, version: str, requires: list[str], files: dict[str, str]):
    """A pure-Python wheel with a correct RECORD."""
    dist = f"{name.replace('-', '_')}-{version}"
    meta = [f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"]
    meta += [f"Requires-Dist: {r}\n" for r in requires]
    content = dict(files)
    content[f"{dist}.dist-info/METADATA"] = "".join(meta)
    content[f"{dist}.dist-info/WHEEL"] = (
        "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    record = []
    for path, text in content.items():
        digest = hashlib.sha256(text.encode()).digest()
        b64 = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
        record.append(f"{path},sha256={b64},{len(text.encode())}")
    record.append(f"{dist}.dist-info/RECORD,,")
    content[f"{dist}.dist-info/RECORD"] = "\n".join(record) + "\n"
    with zipfile.ZipFile(folder / f"{dist}-py3-none-any.whl", "w") as archive:
        for path, text in content.items():
            archive.writestr(path, text)


def _system_python(root: Path) -> Path:
    """This interpreter with its standard library but a site-packages of its own, in ``root``."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    lib = root / "lib" / version
    (lib / "site-packages").mkdir(parents=True)
    for entry in stdlib.iterdir():
        if entry.name != "site-packages":
            (lib / entry.name).symlink_to(entry)
    (root / "bin").mkdir()
    python = root / "bin" / "python3"
    shutil.copy2(os.path.realpath(sys._base_executable), python)
    return python


def _site(python: Path) -> Path:
    out = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return Path(out.stdout.strip())


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("venv-world")
    python = _system_python(root / "system")
    probe = subprocess.run([str(python), "-c", "import sys; print(sys.prefix)"],
                           capture_output=True, text=True, check=False)  # fmt: skip
    if probe.returncode != 0 or probe.stdout.strip() != str(root / "system"):
        pytest.skip(f"a relocated copy of this Python does not run here: {probe.stderr[-200:]}")
    site = _site(python)
    assert site.is_relative_to(root / "system")
    # Debian's python3-numpy: the package plus an .egg-info directory.
    (site / "numpy").mkdir()
    (site / "numpy" / "__init__.py").write_text(f'__version__ = "{SYSTEM_NUMPY}"\n')
    (site / f"numpy-{SYSTEM_NUMPY}.egg-info").mkdir()
    (site / f"numpy-{SYSTEM_NUMPY}.egg-info" / "PKG-INFO").write_text(
        f"Metadata-Version: 1.2\nName: numpy\nVersion: {SYSTEM_NUMPY}\n"
    )
    (site / "simplejpeg.py").write_text(SIMPLEJPEG)
    wheels = root / "wheels"
    wheels.mkdir()
    _wheel(wheels, "numpy", "2.2.0", [], {"numpy/__init__.py": '__version__ = "2.2.0"\n'})
    for version, needs in (("4.12.0.88", "numpy<2.3.0,>=2"), ("4.10.0.84", "numpy>=1.21.2")):
        _wheel(wheels, "opencv-python-headless", version, [needs],
               {"cv2/__init__.py": f'__version__ = "{version}"\n'})  # fmt: skip
    _wheel(wheels, "towerapp", "0.1", ["opencv-python-headless", "numpy"],
           {"towerapp/__init__.py": ""})  # fmt: skip
    return {"root": root, "python": python, "site": site, "wheels": wheels}


def _in_venv(venv: Path, code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(venv / "bin" / "python"), "-c", code],
                          capture_output=True, text=True, check=False)  # fmt: skip


OFFLINE = ["--no-index", "--find-links"]


@pytest.mark.slow
def test_make_venv_keeps_the_system_numpy(world: dict[str, Path]) -> None:
    venv = world["root"] / "venv"
    result = subprocess.run(
        [str(SYSTEMD / "make-venv"), str(world["python"]), str(venv), "towerapp",
         *OFFLINE, str(world["wheels"])],
        capture_output=True, text=True, check=False, timeout=300,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"numpy held at the system's {SYSTEM_NUMPY}" in result.stdout
    assert (venv / "system-constraints.txt").read_text() == f"numpy=={SYSTEM_NUMPY}\n"
    numpy = _in_venv(venv, "import numpy, cv2; print(numpy.__version__, numpy.__file__, "
                           "cv2.__version__)")  # fmt: skip
    version, where, opencv = numpy.stdout.split()
    assert version == SYSTEM_NUMPY and Path(where).is_relative_to(world["site"])
    assert opencv == "4.10.0.84"  # the OpenCV wheel that accepts numpy 1
    assert _in_venv(venv, "import simplejpeg").returncode == 0  # picamera2's import works
    own = _site(venv / "bin" / "python")
    assert not list(own.glob("numpy*")), "pip put a numpy into the venv"


@pytest.mark.slow
def test_plain_pip_breaks_picamera2_and_make_venv_repairs_it(world: dict[str, Path]) -> None:
    """The install as it was put numpy 2 into the venv; make-venv gives the system's back."""
    venv = world["root"] / "old-venv"
    subprocess.run([str(world["python"]), "-m", "venv", "--system-site-packages", str(venv)],
                   check=True, capture_output=True)  # fmt: skip
    subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", *OFFLINE,
         str(world["wheels"]), "towerapp"],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    assert _in_venv(venv, "import numpy; print(numpy.__version__)").stdout.strip() == "2.2.0"
    broken = _in_venv(venv, "import simplejpeg")
    assert broken.returncode != 0 and "numpy.dtype size changed" in broken.stderr

    result = subprocess.run(
        [str(SYSTEMD / "make-venv"), str(world["python"]), str(venv), "towerapp",
         *OFFLINE, str(world["wheels"])],
        capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "removing the venv's own numpy" in result.stdout
    assert _in_venv(venv, "import numpy; print(numpy.__version__)").stdout.strip() == SYSTEM_NUMPY
    assert _in_venv(venv, "import simplejpeg").returncode == 0
