"""A STAND-IN for the parts of slime the rollout plugin touches, for the CI tests (CI has no slime, torch or ray).

It mirrors, field for field, what ../shared/notes/slime.md records of slime 624b824a (miles 31f1ca96 is the same
here); it is not slime's code, and the device test (tests/data/device/) runs the plugin against slime's own code:
- `Sample` (slime/utils/types.py, notes §1.3): the dataclass fields the training path reads, with their defaults, and
  `Sample.Status` with PENDING, COMPLETED, TRUNCATED, ABORTED, FAILED.
- `RolloutDataSource` with no prompt dataset (slime/rollout/data_source.py, notes §1.6: what
  --disable-rollout-global-dataset gives): get_samples(n) returns n groups of n_samples_per_prompt blank Samples,
  group_index and index assigned from running counters.
- `call_rollout_fn` (slime/rollout/base_types.py, notes §1.1–1.2): calls fn(*args, evaluation=...) and wraps a bare
  list as the train output's samples.
- `convert_samples_to_train_data` (RolloutManager._convert_samples_to_train_data, notes §1.3): the tokens,
  response_lengths, loss_masks (None -> [1]·response_length; asserted to have response_length entries) and
  rollout_ids (None -> fresh ids) that reach the trainer, and the rule of §1.4 that the loss covers the last
  response_length tokens, which must leave position 0 (no prediction) out.
"""

import copy
import enum
import itertools
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Sample:
    class Status(enum.Enum):
        PENDING = "pending"
        COMPLETED = "completed"
        TRUNCATED = "truncated"
        ABORTED = "aborted"
        FAILED = "failed"

    group_index: int | None = None
    index: int | None = None
    rollout_id: int | None = None
    prompt: Any = ""
    tokens: list = field(default_factory=list)
    response: str = ""
    response_length: int = 0
    label: Any = None
    reward: Any = None
    loss_mask: list | None = None
    remove_sample: bool = False
    status: "Sample.Status" = Status.PENDING
    metadata: dict = field(default_factory=dict)
    train_metadata: Any = None


class RolloutDataSource:
    """slime's data source with rollout_global_dataset off (no dataset): blank samples, counters for the indices."""

    def __init__(self, args):
        self.args = args
        self.sample_group_index = 0
        self.sample_index = 0

    def get_samples(self, num_samples):
        groups = []
        for _ in range(num_samples):
            prompt_sample = Sample()
            group = []
            for _ in range(self.args.n_samples_per_prompt):
                s = copy.deepcopy(prompt_sample)
                s.group_index = self.sample_group_index
                s.index = self.sample_index
                self.sample_index += 1
                group.append(s)
            self.sample_group_index += 1
            groups.append(group)
        return groups


def call_rollout_fn(fn, *args, evaluation):
    out = fn(*args, evaluation=evaluation)
    return out.samples if hasattr(out, "samples") else out


def flatten(groups):
    data = groups
    while isinstance(data[0], list):
        data = list(itertools.chain.from_iterable(data))
    return data


def convert_samples_to_train_data(samples):
    rollout_ids, used, tmp = [s.rollout_id for s in samples], {s.rollout_id for s in samples} - {None}, 0
    for i, rid in enumerate(rollout_ids):
        if rid is None:
            while tmp in used:
                tmp += 1
            rollout_ids[i] = tmp
            used.add(tmp)
    masks = []
    for s in samples:
        if s.loss_mask is None:
            s.loss_mask = [1] * s.response_length
        assert len(s.loss_mask) == s.response_length, (len(s.loss_mask), s.response_length)
        masks.append([0] * s.response_length if s.remove_sample else s.loss_mask)
    return {"tokens": [s.tokens for s in samples], "response_lengths": [s.response_length for s in samples],
            "loss_masks": masks, "rollout_ids": rollout_ids,
            "truncated": [1 if s.status == Sample.Status.TRUNCATED else 0 for s in samples]}
