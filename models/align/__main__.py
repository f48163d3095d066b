from ..checks import run
from . import main

run(main)
