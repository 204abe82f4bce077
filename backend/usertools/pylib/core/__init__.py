"""TinyElf's compatibility package for tools written for the seed's layout
(AnimaWorks' core.tools). Only what user tools import is here: see
core.tools._base."""
