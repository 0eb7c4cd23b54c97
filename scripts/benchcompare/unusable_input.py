"""The error of input that cannot be compared (exit status 2), and how the programs report it."""

import sys


class UnusableInput(Exception):
    """Every problem found, one precise message each."""

    def __init__(self, messages):
        self.messages = list(messages)
        super().__init__("\n".join(self.messages))


def print_problems(program, messages):
    """Each problem on standard error, as `PROGRAM: error: MESSAGE`."""
    for message in messages:
        print(f"{program}: error: {message}", file=sys.stderr)
