"""One module per chapter: its figures and the glue its page calls (models, fitting, kernels,
topology and data stay shared in commbook). The explorers live in commbook.explorers."""
