"""Prose words of a built page: code cells, outputs, code blocks and mathematics do not count."""

from commbook.prose_words import prose_words

PAGE = """<html><body><nav>Contents Ping-pong Ring</nav>
<article class="bd-article" role="main">
<h1>Ping-pong<a class="headerlink" href="#x">#</a></h1>
<p>Two processes send one message back and forth.</p>
<div class="cell docutils container"><div class="cell_input"><pre>import numpy as np</pre></div>
<div class="cell_output"><pre>array of many numbers and words</pre></div></div>
<p>It costs <span class="math">\\(\\lambda + n/b\\)</span> per message, 0.99 µs at best.</p>
<div class="highlight"><pre>mpicc ring.c</pre></div>
</article></body></html>"""


def test_prose_words_count_the_text_a_reader_reads():
    # "Ping-pong" + 8 words + "It costs per message, µs at best" (numbers are not words)
    assert prose_words(PAGE) == 1 + 8 + 7


def test_prose_words_of_an_empty_page():
    assert prose_words("<html><body><article role='main'></article></body></html>") == 0
