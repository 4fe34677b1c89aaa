"""The cluster page (book/cluster.md): its exercises."""
