"""`ideaco.plots`: the four PNGs of a run are written into its directory and are real images."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import matplotlib.image as mpimg
import matplotlib.pyplot as plt
import pytest

from ideaco.analysis import load_run
from ideaco.cycle import Gate
from ideaco.plots import OUTCOME_COLOURS, label, write_plots
from ideaco.store.state import StateStore
from tests.test_analysis import make_run

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
NAMES = ("relationships.png", "stamina.png", "activity.png", "talk.png")


def assert_png(path: Path) -> None:
    assert path.read_bytes()[:8] == PNG_SIGNATURE
    image = mpimg.imread(path)
    height, width = image.shape[:2]
    assert height > 200 and width > 400
    assert image.std() > 0.01  # not a blank canvas


def test_plots_are_written_into_the_run_directory(tmp_path):
    run_dir = make_run(tmp_path / "run")
    paths = write_plots(load_run(run_dir))
    assert [p.name for p in paths] == list(NAMES)
    for path in paths:
        assert path.parent == run_dir
        assert_png(path)
    assert plt.get_fignums() == []  # every figure was closed


def test_names_are_drawn_literally(tmp_path):
    # "$" would start matplotlib's mathtext (an unbalanced one raises); control characters are hidden.
    run_dir = make_run(tmp_path / "run", names=("$x^$ Ca", "Bob\x1b[31m"))
    for path in write_plots(load_run(run_dir)):
        assert_png(path)
    assert label("Ca$h") == r"Ca\$h"
    assert label("a\x1bb") == "a?b"


def test_a_run_with_no_thoughts_and_no_impressions_still_plots(tmp_path):
    run_dir = make_run(tmp_path / "run")
    (run_dir / "thoughts.jsonl").write_text("")
    (run_dir / "messages.jsonl").unlink()
    with StateStore(run_dir / "state.json") as store:
        state = store.load()
        for emp in state["employees"]:
            emp["relationships"], emp["tasks"] = {}, []
        store.save({"employees": state["employees"]})
    for path in write_plots(load_run(run_dir)):
        assert_png(path)


def test_an_unwritable_directory_raises_oserror(tmp_path):
    run = load_run(make_run(tmp_path / "run"))
    with pytest.raises(OSError):
        write_plots(run, out_dir=tmp_path / "missing" / "dir")
    assert plt.get_fignums() == []


def test_plotting_leaves_the_host_processs_matplotlib_alone(tmp_path):
    """A notebook's backend and pyplot figures are its own: importing and plotting change neither."""
    run_dir = make_run(tmp_path / "run")
    code = (
        "import matplotlib; matplotlib.use('svg')\n"
        "import matplotlib.pyplot as plt; plt.figure()\n"
        "import ideaco.plots, ideaco.sweep.plot\n"
        "from ideaco.analysis import load_run\n"
        f"ideaco.plots.write_plots(load_run({str(run_dir)!r}))\n"
        "print(matplotlib.get_backend(), plt.get_fignums())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["svg", "[1]"], out.stderr


def test_every_gate_has_a_colour_of_its_own_in_the_activity_plot():
    gates = {g.value: OUTCOME_COLOURS.get(g.value) for g in Gate}
    assert None not in gates.values(), gates
    assert len(set(OUTCOME_COLOURS.values())) == len(OUTCOME_COLOURS)
