"""plots/timeline.png of a phase shorter than two seconds: its series has one point, which a line
cannot draw, so it is a marker (seen in a 0.4 s PostgreSQL phase beside a longer MongoDB one: only
MongoDB's line showed). Read back from the PNG: the database's own colour in the plot area, where
nothing but that point can put it (its legend entry is at the panel's top left)."""
import matplotlib.colors
import matplotlib.image

from analysis.render import timeline_plot
from analysis.render.plots import COLORS


def second(t, ok):
    return {"t": t, "ops": {"insert": {"ok": ok, "errors": 0, "p99_ms": 2.0 + ok / 100}}}


def test_a_one_second_series_is_drawn_as_a_marker(tmp_path):
    runs = [{"database": "mongodb", "phase": "mongodb",
             "timeline": {"start": 0, "seconds": [second(0.5, 90), second(1.5, 100), second(2.5, 95)]}},
            {"database": "postgres", "phase": "postgres", "timeline": {"start": 0, "seconds": [second(0.4, 40)]}}]
    path = timeline_plot.timeline({"bench": "x", "runs": runs, "stand_in": []}, runs, str(tmp_path / "timeline.png"))
    png = matplotlib.image.imread(path)[:, :, :3]
    want = matplotlib.colors.to_rgb(COLORS["postgres"])
    height = png.shape[0]
    # the throughput panel's lower part (40 ops/s, far below MongoDB's 90 to 100 and below the legend)
    band = png[int(height * 0.30):int(height * 0.48)]
    hits = (abs(band - want) < 0.02).all(axis=2).sum()
    assert hits >= 10, hits
