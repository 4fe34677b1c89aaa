"""The validation page (book/validation.md): its claims and exercises."""
