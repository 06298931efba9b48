"""The simulated annotator's labels are recognised as simulated by its name, so the name is
guarded: renamed, its labels would pass as a person's; taken by a person, their real labels
would be marked simulated. Whatever saves the user, and in the Django admin as a form error."""

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

from assess.models.simulated import SIMULATED_ANNOTATOR
from assess.review.simulated_annotators import simulated_annotator_ensure


@pytest.mark.django_db
def test_renaming_the_simulated_annotator_is_refused_and_changes_nothing():
    user = simulated_annotator_ensure()
    user.username = "alice"

    with pytest.raises(ValidationError, match="cannot be renamed"):
        user.save()

    assert get_user_model().objects.filter(username=SIMULATED_ANNOTATOR, pk=user.pk).exists()


@pytest.mark.django_db
def test_a_person_cannot_be_renamed_to_the_simulated_annotator():
    person = get_user_model().objects.create_user(username="bob", password="x")
    person.username = SIMULATED_ANNOTATOR

    with pytest.raises(ValidationError, match="real labels would be marked"):
        person.save()

    assert get_user_model().objects.get(pk=person.pk).username == "bob"


@pytest.mark.django_db
def test_a_person_cannot_take_the_name_in_another_case_either():
    person = get_user_model().objects.create_user(username="dora", password="x")
    person.username = SIMULATED_ANNOTATOR.title()

    with pytest.raises(ValidationError, match="real labels would be marked"):
        person.save()


@pytest.mark.django_db
def test_other_saves_of_the_simulated_annotator_and_of_people_go_through():
    user = simulated_annotator_ensure()
    user.first_name = "Simulated"
    user.save()
    person = get_user_model().objects.create_user(username="carol", password="x")
    person.username = "carol2"
    person.save()

    assert get_user_model().objects.get(pk=user.pk).first_name == "Simulated"
    assert get_user_model().objects.filter(username="carol2").exists()


@pytest.mark.django_db
def test_the_admin_change_page_shows_the_refusal_on_the_name_field(client):
    user = simulated_annotator_ensure()
    client.force_login(
        get_user_model().objects.create_superuser(username="root", password="x", email="")
    )
    page = client.get(f"/admin/auth/user/{user.pk}/change/")
    assert page.status_code == 200
    form = page.context["adminform"].form
    data = {
        name: value
        for name, value in form.initial.items()
        if value is not None and name not in {"password", "groups", "user_permissions"}
    }
    data.update(
        username="renamed",
        date_joined_0=user.date_joined.strftime("%Y-%m-%d"),
        date_joined_1=user.date_joined.strftime("%H:%M:%S"),
    )
    data.pop("date_joined", None)
    data.pop("last_login", None)

    answer = client.post(f"/admin/auth/user/{user.pk}/change/", data)

    assert answer.status_code == 200  # the form again, with its error
    assert "cannot be renamed" in answer.content.decode()
    assert get_user_model().objects.get(pk=user.pk).username == SIMULATED_ANNOTATOR
