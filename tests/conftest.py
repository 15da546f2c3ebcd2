"""Session-wide test settings."""

import atexit
import os
import shutil
import tempfile

from providers.auth.token_store import CACHE_DIR_ENV

# Tokens shared between processes live in a directory of this test session only, so tests
# (and the engines they start) never reuse a token of another run or of the user.
_token_dir = tempfile.mkdtemp(prefix="workspace-tokens-")
os.environ[CACHE_DIR_ENV] = _token_dir
atexit.register(shutil.rmtree, _token_dir, ignore_errors=True)
