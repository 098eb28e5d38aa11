from .core import convert as convert
from .types import DateTime as DateTime
