"""The one error type for bad specification files."""


class SpecError(ValueError):
    """A claim file or profile is malformed or out of range.

    Carries the file, the key, the offending value and the rule it breaks, so the message alone
    tells the user what to fix. The CLI maps it to exit code 3.
    """

    def __init__(self, file: str, key: str, value: object, rule: str) -> None:
        self.file = file
        self.key = key
        self.value = value
        self.rule = rule
        super().__init__(f"{file}: {key} = {value!r}: {rule}")
