"""Performance models, one module per family: hockney, ring, matrix, collectives, jacobi.

Every function here is a model: its curves are labelled as such in the book."""
