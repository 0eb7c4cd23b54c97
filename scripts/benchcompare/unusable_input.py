"""The error of input that cannot be compared (exit status 2)."""


class UnusableInput(Exception):
    """Every problem found, one precise message each."""

    def __init__(self, messages):
        self.messages = list(messages)
        super().__init__("\n".join(self.messages))
