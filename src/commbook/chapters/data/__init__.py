"""The data page (book/data.md): its claims and exercises."""
