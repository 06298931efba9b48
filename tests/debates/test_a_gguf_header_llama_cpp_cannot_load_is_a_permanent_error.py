"""A file that passes the header check but that llama.cpp cannot load (here: a GGUF header
with no tensors) gives a PermanentLLMError naming the file when the client is built, never
a reply; by its file name only, in llama.cpp's words too: the error is stored on the debate,
which researchers read, and the folder is the server's."""

import pytest

from debates.llm.base import PermanentLLMError
from debates.llm.config import AgentConfig
from debates.llm.registry import client_from_config
from tests.fixtures.llm import write_gguf_header


def test_the_client_is_refused_naming_the_file(tmp_path):
    path = write_gguf_header(
        tmp_path / "empty.gguf",
        {"general.architecture": "llama", "tokenizer.chat_template": "{{ messages }}"},
    )
    config = AgentConfig.load({"backend": "embedded", "model_path": str(path)})
    with pytest.raises(PermanentLLMError) as caught:
        client_from_config(config)
    assert str(caught.value) == (
        "empty.gguf: llama.cpp cannot load it (Failed to load model from file: empty.gguf)"
    )
    assert str(tmp_path) not in str(caught.value)
