"""The version of evidence-plan, declared once: the wheel's metadata (hatch reads this file),
``evidence-plan --version``, SARIF's tool version and ``compiler.__version__`` all come from here."""

__version__ = "0.1.0"
