"""Tables of text cells, for terminals (aligned columns) and for GitHub markdown."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Table:
    headers: list
    rows: list  # lists of strings, one per header
    right_aligned: frozenset = frozenset()  # column indices; numbers read best right-aligned


def render_text_table(table):
    widths = [max(len(row[column]) for row in [table.headers] + table.rows)
              for column in range(len(table.headers))]

    def line(cells):
        padded = [cell.rjust(width) if column in table.right_aligned else cell.ljust(width)
                  for column, (cell, width) in enumerate(zip(cells, widths))]
        return "  ".join(padded).rstrip()

    return "\n".join(line(cells) for cells in [table.headers] + table.rows)


def render_markdown_table(table):
    separators = ["---:" if column in table.right_aligned else ":---"
                  for column in range(len(table.headers))]
    return "\n".join("| " + " | ".join(cells) + " |"
                     for cells in [table.headers, separators] + table.rows)
