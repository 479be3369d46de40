"""Errors the command line and the service report to a person in one line."""


class UserError(Exception):
    """Bad input from a person, a file or the environment.

    The command line prints the message on one line and exits 1; the web app
    answers 400. The message says what was wrong and what would be right.
    """


class ConfigError(UserError, ValueError):
    """The configuration file or an environment override is invalid."""
