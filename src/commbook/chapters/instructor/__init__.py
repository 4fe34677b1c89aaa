"""The instructor page (book/instructor.md): its claims."""
