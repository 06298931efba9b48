"""The built-in default annotation guidelines, version 1 (``dataset`` and ``job`` empty): what
every pair falls back to when neither its job nor its dataset has guidelines of its own.

The text is a copy, not an import of assess.review.default_guidelines: a migration is
history, and an edit of that constant later must not change what this migration stores on
a fresh database (version 1 would then differ between databases made before and after the
edit). tests/assess/test_guidelines_default_is_stored_by_a_migration.py checks that the two
agree; a new default text is a new migration storing version 2.
"""

from django.db import migrations

TEXT = """\
Each pair is a **query** and a **chunk** (a passage of a document). You decide whether the
chunk is relevant to the query. Two language-model agents debated the pair first and could
not agree, or agreed and the pair was drawn to check them: your answer settles it.

## What "relevant" means here

A chunk is **relevant** when **the chunk itself holds evidence that answers the query**.

- For a question, the chunk states (part of) the answer, or facts from which the answer
  follows directly.
- For a **claim** (SciFact-like sets, where the "query" is a scientific claim), the chunk is
  relevant when it holds evidence that **supports or refutes** the claim. A chunk that
  contradicts the claim is relevant: it is the evidence a fact-checker needs.
- Sharing words or the subject with the query is **not enough**. A chunk about the same
  drug, disease or topic that says nothing about what the query asks is not relevant.
- Judge the chunk as shown, not the whole article it comes from, and not what you know
  yourself: if the chunk needs outside knowledge to say anything about the query, it is not
  relevant.
- The reference answers (when shown) tell you what a correct answer looks like; the chunk
  does not have to use the same words.

## Using the debate

When the agents could not agree, the page shows their whole debate: agent A started
arguing *relevant*, agent B *not relevant*, and each may have changed its mind. Their quoted
evidence is highlighted in the chunk (blue for A, orange for B); the query's terms are
underlined. Pairs drawn to check an agreed label show no debate: judge them on the chunk
alone, the same way.

- **The agents may be wrong.** They misread, over-reach, and sometimes argue well for the
  wrong answer. Use the debate to find the sentences that matter, then read them yourself.
- A quote marked "not found in the chunk" is not in the chunk: do not trust it.
- Decide on the chunk, not on which agent argued better or more often.

## Graded pairs (0 to G)

Some jobs grade relevance from 0 to a top grade G instead of yes/no. The page then shows the
rubric above the buttons, and the rubric on the page is the one to follow. For example, with
G = 2 (as in NFCorpus):

| grade | name | meaning |
|---|---|---|
| 0 | not relevant | nothing to do with the query, or only shares a few words with it |
| 1 | partially relevant | on the query's subject, but helps answer it only in part |
| 2 | highly relevant | dedicated to the query and answers it directly |

Pick the highest grade whose description the chunk fully meets.

## Keys

| key | does |
|---|---|
| `1` / `0` | relevant / not relevant (on a graded pair, the digits `0` to `G` give the grade) |
| `s` | skip: the pair goes back to the queue for someone else |
| `u` | undo your last answer (within 15 minutes) and judge that pair again |
| `n` | write a note (`Esc` leaves the note field) |
| `g` | show or hide these guidelines |
| `?` | show or hide the keys |

Skip a pair you cannot judge (a language you do not read, a chunk that is cut off too
early to tell) instead of guessing. When you hesitate, answer and say why in a note: the
admins read notes when humans disagree. Take the time you need to read the chunk.

## Worked examples

### 1. Relevant: the chunk holds the evidence

> **Claim:** Vitamin D supplementation reduces the risk of hip fracture in older adults.
>
> **Chunk:** "In a pooled analysis of eleven randomised trials (31,022 participants aged 65
> or older), a daily vitamin D dose of at least 800 IU reduced hip fractures by 30 percent.
> Lower doses showed no effect."

**Relevant (1).** The chunk reports the effect the claim is about, in the population it
names. The second sentence narrows the claim (only high doses) but does not make the chunk
less useful: evidence that qualifies a claim is evidence about it.

### 2. Not relevant: same topic, no answer

> **Query:** Does vitamin D reduce fractures?
>
> **Chunk:** "Serum 25-hydroxyvitamin D was measured by liquid chromatography-tandem mass
> spectrometry. Concentrations were lower in winter than in summer in all age groups."

**Not relevant (0).** The chunk is about vitamin D and shares the query's key term, but it
says nothing about fractures. An agent may argue that "low vitamin D in winter" implies
something about fractures; that link is not in the chunk.

### 3. Partial: part of the answer

> **Query:** What are the side effects of metformin?
>
> **Chunk:** "Metformin remains the first-line treatment for type 2 diabetes. Doses are
> titrated over several weeks, mainly because of gastrointestinal intolerance, which
> affected 20 percent of patients in the first month."

**Binary: relevant (1). Graded with G = 2: partially relevant (1).** The chunk names one
side effect and how common it is, which answers the query in part; most of the chunk is
about dosing. On a yes/no scale, evidence that answers part of the query counts as relevant.

### 4. Relevant because it refutes

> **Claim:** Taking aspirin daily lowers the risk of dementia in healthy older people.
>
> **Chunk:** "Among 19,114 community-dwelling adults aged 70 or older followed for a median
> of 4.7 years, daily low-dose aspirin did not reduce the risk of dementia compared with
> placebo (hazard ratio 0.98)."

**Relevant (1).** The chunk contradicts the claim with direct evidence. For claims,
"relevant" means "holds evidence for or against", not "agrees".
"""


def store_default(apps, schema_editor):
    Guidelines = apps.get_model("assess", "Guidelines")
    # Idempotent: migrating back (a no-op) and forward again stores nothing twice.
    if not Guidelines.objects.filter(dataset=None, job=None, version=1).exists():
        Guidelines.objects.create(dataset=None, job=None, version=1, text=TEXT)


class Migration(migrations.Migration):

    dependencies = [
        ("assess", "0009_gold_guidelines_active_time"),
    ]

    operations = [
        # Backwards: nothing. Deleting version 1 would also delete the confirmations of it
        # and empty the guidelines of the judgments made under it.
        migrations.RunPython(store_default, migrations.RunPython.noop),
    ]
