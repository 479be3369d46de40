"""The Zilch Tower service: table controller, persistence, web app and command line.

``server`` is the only package that imports the others (``zilch``, ``vision``,
``firmware``); it is where a camera reading becomes a game action.
"""

__version__ = "0.1.0"
