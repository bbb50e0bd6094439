"""The shared training loop: seeded and repeatable, the best epoch kept, early stopping, a step cap, and a
non-finite loss stopping the run."""

from __future__ import annotations

import pytest

from paraspan.errors import ParaspanError

torch = pytest.importorskip("torch")

from paraspan.train.loop import Epoch, Fit  # noqa: E402


def _problem(seed: int = 0) -> tuple[object, object, object, object]:
    torch.manual_seed(seed)
    x = torch.randn(64, 3)
    y = x @ torch.tensor([1.0, -2.0, 0.5]) + 0.1
    model = torch.nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    return x, y, model, opt


def _fit(model: object, opt: object, x: object, y: object, **options: object) -> Fit:
    gen = torch.Generator().manual_seed(1)

    def batches(_epoch: int):
        order = torch.randperm(len(x), generator=gen)
        return [order[s:s + 16] for s in range(0, len(x), 16)]

    def loss(idx):
        return torch.nn.functional.mse_loss(model(x[idx]).squeeze(-1), y[idx]), len(idx)

    options.setdefault("epochs", 5)
    return Fit(model, opt, batches, loss, **options)


def test_the_same_seed_gives_the_same_weights_and_losses():
    runs = []
    for _ in range(2):
        x, y, model, opt = _problem()
        result = _fit(model, opt, x, y).run()
        runs.append((model.weight.detach().clone(), result.losses))
    assert torch.equal(runs[0][0], runs[1][0]) and runs[0][1] == runs[1][1]
    assert len(runs[0][1]) == 5 and runs[0][1][-1] < runs[0][1][0]


def test_the_best_epochs_weights_are_loaded_back_and_patience_stops_early():
    x, y, model, opt = _problem()
    seen: list[Epoch] = []
    weights = {}

    def score(end: Epoch) -> float:
        seen.append(end)
        weights[end.epoch] = model.weight.detach().clone()
        return [0.1, 0.9, 0.5, 0.4, 0.3, 0.2][end.epoch - 1]

    result = _fit(model, opt, x, y, epochs=6).run(score, keep_best=True, patience=2)
    assert [e.epoch for e in seen] == [1, 2, 3, 4] and result.stopped == "no better score in 2 epochs"
    assert result.best_epoch == 2 and result.best_score == 0.9
    assert torch.equal(model.weight.detach(), weights[2])
    assert seen[-1].steps == 16  # 4 batches an epoch


def test_keep_best_without_a_rated_epoch_is_an_error():
    x, y, model, opt = _problem()
    with pytest.raises(ParaspanError) as caught:
        _fit(model, opt, x, y, epochs=0).run(lambda end: 1.0, keep_best=True)
    assert caught.value.problem.code == "E971"


def test_max_steps_ends_inside_an_epoch_and_the_scheduler_follows_its_setting():
    x, y, model, opt = _problem()
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    heard = []
    result = _fit(model, opt, x, y, epochs=None, max_steps=6, scheduler=sched,
                  after_step=lambda n, value, w: heard.append((n, w))).run()
    assert result.steps == 6 and len(result.losses) == 2  # 4 steps, then 2 of the second epoch
    assert heard == [(0, 16), (1, 16), (2, 16), (3, 16), (0, 16), (1, 16)]
    assert opt.param_groups[0]["lr"] == pytest.approx(0.05 * 0.5 ** 6)

    x, y, model, opt = _problem()
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    _fit(model, opt, x, y, epochs=3, scheduler=sched, schedule="epoch").run()
    assert opt.param_groups[0]["lr"] == pytest.approx(0.05 * 0.5 ** 3)


def test_a_non_finite_loss_stops_before_its_step():
    x, y, model, opt = _problem()
    y = y.clone()
    before = model.weight.detach().clone()
    y[:] = float("nan")
    result = _fit(model, opt, x, y, stop_on_nonfinite=True).run()
    assert result.stopped == "non-finite loss at step 0" and result.losses == []
    assert torch.equal(model.weight.detach(), before)


def test_bad_settings_are_refused():
    x, y, model, opt = _problem()
    with pytest.raises(ValueError):
        _fit(model, opt, x, y, epochs=None).run()
    with pytest.raises(ValueError):
        _fit(model, opt, x, y, schedule="sometimes").run()
