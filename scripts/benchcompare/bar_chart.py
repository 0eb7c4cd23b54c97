"""Draws the panels of chart_panels as one PNG of horizontal bars, with matplotlib's Agg renderer
(no display needed; pyplot, with its global state and backend choice, is not used).

The image is 1200 pixels wide; its height follows the number of bars alone, so that one input
always gives an image of one size."""

import math

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator
from matplotlib.transforms import blended_transform_factory

from .verdicts import Verdict

DPI = 100
WIDTH_INCHES = 12.0
TITLE_INCHES = 0.9  # title and subtitle of the figure
PANEL_INCHES = 1.4  # a panel's title, legend and axis
ROW_INCHES = 0.3  # a bar
PAIRED_ROW_INCHES = 0.5  # a bar with its baseline

COLOURS = {Verdict.SLOWER: "#d62728", Verdict.FASTER: "#2ca02c", Verdict.SAME: "#a0a0a0"}
NEUTRAL_COLOUR = "#4c72b0"  # bars without a verdict (one run)
BAND_COLOUR = "#fbe3a1"
LOG_MARGIN = 1.15  # room beyond the outermost value, as a factor
MAX_TICKS = 9
# Tick values of log axes, finest first: these mantissas in every decade above 1, mirrored below
# 1 (0.8x is the mirror of 1.25x).
TICK_MANTISSAS = ((1, 1.1, 1.25, 1.5, 2, 3, 5), (1, 1.25, 1.5, 2, 3, 5), (1, 1.5, 2, 3, 5),
                  (1, 2, 5), (1, 3), (1,))


def image_size(panels):
    """(width, height) in pixels of the image of PANELS."""
    height = TITLE_INCHES + sum(_panel_inches(panel) for panel in panels)
    return round(WIDTH_INCHES * DPI), round(height * DPI)


def render_chart(panels, title, subtitle, path):
    """Writes the PNG to PATH (OSError if it cannot); returns its (width, height) in pixels."""
    width, height = image_size(panels)
    figure = Figure(figsize=(width / DPI, height / DPI), dpi=DPI, layout="constrained")
    FigureCanvasAgg(figure)
    figure.suptitle(f"{title}\n{subtitle}", fontsize=12)
    grid = figure.add_gridspec(len(panels), 1,
                               height_ratios=[_panel_inches(panel) for panel in panels])
    for row, panel in enumerate(panels):
        _draw_panel(figure.add_subplot(grid[row, 0]), panel)
    # No software version in the file: one input, one file, whichever matplotlib wrote it.
    figure.savefig(path, format="png", dpi=DPI, metadata={"Software": None})
    return width, height


def _panel_inches(panel):
    paired = any(bar.baseline is not None for bar in panel.bars)
    return PANEL_INCHES + len(panel.bars) * (PAIRED_ROW_INCHES if paired else ROW_INCHES)


def _draw_panel(axes, panel):
    limits = _limits(panel)
    axes.set_xlim(*limits)
    rows = range(len(panel.bars))
    start = 1 if panel.log_scale else 0
    paired = any(bar.baseline is not None for bar in panel.bars)
    for row, bar in zip(rows, panel.bars):
        if bar.band:
            low, high = (limits[0] if bar.band[0] is None else bar.band[0],
                         limits[1] if bar.band[1] is None else bar.band[1])
            axes.barh(row, high - low, left=low, height=0.9, color=BAND_COLOUR, zorder=0)
        offset = 0.2 if paired else 0
        colour = COLOURS.get(bar.verdict, NEUTRAL_COLOUR)
        height = 0.4 if paired else 0.6
        axes.barh(row + offset, bar.value - start, left=start, height=height, color=colour,
                  zorder=2)
        # The bar's end, seen even where the bar has no length (a speedup of 1.00x).
        axes.vlines(bar.value, row + offset - height / 2, row + offset + height / 2,
                    color=colour, linewidth=3, zorder=2)
        if bar.baseline is not None:
            axes.barh(row - offset, bar.baseline - start, left=start, height=0.4,
                      facecolor="white", edgecolor="#505050", hatch="///", zorder=2)
        if bar.spread:
            axes.errorbar(bar.value, row, xerr=[[bar.value - bar.spread[0]],
                                                [bar.spread[1] - bar.value]],
                          fmt="none", ecolor="black", capsize=3, linewidth=1, zorder=3)
    # The bars' texts in a column right of the plot, level with their bars.
    beside = blended_transform_factory(axes.transAxes, axes.transData)
    for row, bar in zip(rows, panel.bars):
        axes.text(1.01, row, bar.text, transform=beside, va="center", fontsize=9)
    axes.set_yticks(list(rows), [bar.label for bar in panel.bars], fontsize=9)
    axes.set_ylim(len(panel.bars) - 0.5, -0.5)  # the first bar on top
    axes.set_title(panel.title, loc="left", fontsize=10, pad=22 if _legend(panel) else 6)
    axes.set_xlabel(panel.axis_label, fontsize=9)
    axes.grid(axis="x", color="#e0e0e0", zorder=-1)
    axes.set_axisbelow(True)
    if panel.log_scale:
        axes.set_xscale("log")
        axes.axvline(1, color="black", linewidth=1, zorder=1)
        axes.xaxis.set_major_locator(FixedLocator(_log_ticks(*limits)))
        axes.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:.3g}x"))
        axes.xaxis.set_minor_locator(NullLocator())
    elif panel.percent:
        axes.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value * 100:g}%"))
    legend = _legend(panel)
    if legend:
        axes.legend(handles=legend, loc="lower left", bbox_to_anchor=(0, 1), ncols=len(legend),
                    frameon=False, fontsize=8, borderaxespad=0.2, handlelength=1.5)


def _legend(panel):
    if not any(bar.verdict for bar in panel.bars):
        return []
    handles = [Patch(color=colour, label=verdict.value) for verdict, colour in COLOURS.items()]
    if any(bar.baseline is not None for bar in panel.bars):
        handles.append(Patch(facecolor="white", edgecolor="#505050", hatch="///",
                             label="baseline"))
    handles.append(Patch(color=BAND_COLOUR, label="within the minimum effect"))
    return handles


def _limits(panel):
    values = [bar.value for bar in panel.bars]
    values += [bar.baseline for bar in panel.bars if bar.baseline is not None]
    values += [end for bar in panel.bars for end in (bar.band or ()) if end is not None]
    values += [end for bar in panel.bars for end in (bar.spread or ())]
    if not panel.log_scale:
        return 0, max(values + [0]) * 1.1 or 1
    low, high = min(values + [1]), max(values + [1])
    if panel.symmetric:
        reach = max(high, 1 / low, 1.25) * LOG_MARGIN
        return 1 / reach, reach
    return low / LOG_MARGIN, high * LOG_MARGIN


def _log_ticks(low, high):
    """Round values from LOW to HIGH, the finest set with at most MAX_TICKS of them."""
    for mantissas in TICK_MANTISSAS:
        ticks = set()
        for exponent in range(math.ceil(max(math.log10(high), -math.log10(low))) + 1):
            for mantissa in mantissas:
                tick = mantissa * 10 ** exponent
                ticks.update((tick, 1 / tick))
        inside = sorted(tick for tick in ticks if low <= tick <= high)
        if len(inside) <= MAX_TICKS:
            return inside
    return [1]
