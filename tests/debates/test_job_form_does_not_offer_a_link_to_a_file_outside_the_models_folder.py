"""A .gguf link in DREAM_MODELS_DIR to a file outside it is not offered by the job form (the
launch would refuse it); a link to a file inside the folder, or to the bundled model's file,
is."""

import os
import re

from debates.llm.embedded import smollm2_gguf_path
from tests.fixtures.llm import write_gguf_header


def test_a_link_out_of_the_folder_is_not_offered(client_as, settings, tmp_path):
    models, outside = tmp_path / "models", tmp_path / "outside"
    models.mkdir()
    outside.mkdir()
    header = {"general.architecture": "llama", "tokenizer.chat_template": "{{ x }}"}
    write_gguf_header(models / "in.gguf", header)
    write_gguf_header(outside / "out.gguf", header)
    os.symlink(outside / "out.gguf", models / "link-out.gguf")
    os.symlink("/etc/passwd", models / "passwd.gguf")
    os.symlink(models / "in.gguf", models / "link-in.gguf")
    os.symlink(smollm2_gguf_path(), models / "smol.gguf")
    settings.DREAM_MODELS_DIR = str(models)
    page = client_as("admin").get("/jobs/new/").content.decode()
    select = re.search(r'<select name="a_model_path"[^>]*>(.*?)</select>', page, re.S)
    assert select is not None
    offered = re.findall(r'<option value="([^"]*)"', select.group(1))
    assert offered == [
        "",
        str(models / "in.gguf"),
        str(models / "link-in.gguf"),
        str(models / "smol.gguf"),
    ]
