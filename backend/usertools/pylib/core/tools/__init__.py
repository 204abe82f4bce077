"""TinyElf's compatibility package core.tools: see core.tools._base. TinyElf
does not scan this package for tools; its own tools are built in."""
