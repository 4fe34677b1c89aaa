"""Executing the book's chapters outside a book build: `chapters` runs pages through the book's
execution cache and checks their glue and claims (make execute); `cache` keeps one cache per MPI family."""
