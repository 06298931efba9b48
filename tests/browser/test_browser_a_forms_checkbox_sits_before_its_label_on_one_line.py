"""In Chromium: every checkbox of the job launch form (Stage 0, Batch, Reuse, Duplicate, Check
judged) and of the refine form, which share the form style, sits at its field's left edge
with its label's words to its right on the same line, as in any form; not centred on a line
of its own above them."""

import pytest

from tests.fixtures.browser import browser_login

# For each checkbox: how far its left edge is from its field's, whether the first line of its
# label's words lies to its right, and whether that line holds the box's vertical centre.
MEASURE = """(ids) => ids.map((id) => {
  const box = document.getElementById(id).getBoundingClientRect();
  const field = document.getElementById(id).closest('.field').getBoundingClientRect();
  const label = document.querySelector(`label[for="${id}"]`);
  const range = document.createRange();
  const words = [...label.childNodes].find((n) => n.nodeType === 3 && n.textContent.trim());
  range.selectNodeContents(words);
  const line = range.getClientRects()[0];
  const middle = box.top + box.height / 2;
  return [id, Math.round(box.left - field.left), line.left >= box.right,
          line.top <= middle && middle <= line.bottom];
})"""

LAUNCH = ["id_stage0", "id_batch", "id_reuse", "id_allow_duplicate", "id_check_judged"]
REFINE = ["id_allow_partial", "id_exclude_flagged"]


@pytest.mark.django_db(transaction=True)
def test_checkboxes_sit_left_of_their_labels_on_one_line(
    live_server, browser_page, make_user, tiny_dataset
):
    make_user("admin")
    page = browser_page
    browser_login(page, live_server.url, "/jobs/new/", "admin")
    measured = page.evaluate(MEASURE, LAUNCH)
    assert measured == [[id, 0, True, True] for id in LAUNCH]
    page.goto(live_server.url + f"/datasets/{tiny_dataset.slug}/refined/")
    measured = page.evaluate(MEASURE, REFINE)
    assert measured == [[id, 0, True, True] for id in REFINE]
