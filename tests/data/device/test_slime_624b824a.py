"""The plugin against slime's own code at 624b824a (a snapshot carried to the device machine; run by
tests/data/device/run.sh there). Real: slime's contract-test assertions, Sample, RolloutDataSourceWithBuffer,
call_rollout_fn, validate_rollout_id_annotated, and RolloutManager's _post_process_rewards,
_convert_samples_to_train_data and _split_train_data_by_dp (with build_dp_schedule and
tensorize_rollout_data_for_training), with torch and pyarrow. Placeholders (tests/data/device/placeholders.py) stand
only for packages the device lacks, so slime's modules import; `ray.remote` is the identity there so RolloutManager
stays a class, and `ray.put` returns its argument so each DP rank's data can be read back.

Env: SLIME_ROOT (the snapshot), OPENRECIPES_TEST_ROWS (rows_fixture.py's folder, built on the CPU machine)."""

import hashlib
import os
import sys
import types

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
SLIME = os.environ["SLIME_ROOT"]
for p in (os.path.join(REPO, "data"), os.path.dirname(HERE), os.path.join(SLIME, "tests"), SLIME):
    sys.path.insert(0, p)

import placeholders  # noqa: E402,F401  (before slime)
import torch  # noqa: E402

# slime's contract test module: its stubs, its Sample/RolloutFnTrainOutput imports and its assertion helpers.
from plugin_contracts import test_plugin_rollout_contracts as contract  # noqa: E402
from slime.observability.rollout_data_utils import validate_rollout_id_annotated  # noqa: E402
from slime.ray.rollout import RolloutManager  # noqa: E402
from slime.rollout.base_types import RolloutFnTrainOutput, call_rollout_fn  # noqa: E402
from slime.rollout.data_source import RolloutDataSourceWithBuffer  # noqa: E402
from slime.utils.misc import load_function  # noqa: E402
from slime.utils.types import Sample  # noqa: E402

import pretokenized_sft_rollout  # noqa: E402
from rows_fixture import ROW_LENGTH, ROWS  # noqa: E402

ROWS_DIR = os.path.join(os.environ["OPENRECIPES_TEST_ROWS"], "seed0")
B = 32


def build_rows():
    return np.fromfile(os.path.join(ROWS_DIR, "rows.bin"), dtype="<i4").reshape(ROWS, ROW_LENGTH)


def slime_args(prompt_data, **over):
    """The arguments slime's parser gives for data/README.md's flags, for the fields these code paths read
    (defaults from slime/utils/arguments.py at 624b824a: grpo with rewards and std normalization, micro-batch 1)."""
    a = dict(prompt_data=prompt_data, rollout_global_dataset=False, buffer_filter_path=None, n_samples_per_prompt=1,
             rollout_batch_size=B, global_batch_size=B, advantage_estimator="grpo", rewards_normalization=True,
             grpo_std_normalization=True, reward_key=None, micro_batch_size=1, use_dynamic_batch_size=True,
             max_tokens_per_gpu=ROW_LENGTH, balance_data=False, balance_by_flops=False, rollout_data_transport="object-store",
             rollout_top_p=1.0, use_rollout_routing_replay=False, load=None, save=None, dump_details=None)
    a.update(over)
    return types.SimpleNamespace(**a)


@pytest.fixture(params=["rows.parquet", "rows.bin"])
def rows_path(request):
    return os.path.join(ROWS_DIR, request.param)


def test_the_computing_packages_are_real():
    print("placeholder modules:", sorted(placeholders.placeheld))
    import pyarrow

    for m in (torch, np, pyarrow):
        assert not isinstance(m, placeholders._Module) and os.path.exists(m.__file__), m
    assert torch.tensor([1, 2]).sum().item() == 3
    print("torch", torch.__version__, "pyarrow", pyarrow.__version__, "numpy", np.__version__)


def test_slimes_signature_check_and_loader_accept_the_plugin():
    contract.assert_rollout_function_signature_matches_default(pretokenized_sft_rollout.generate_rollout)
    fn = load_function("pretokenized_sft_rollout.generate_rollout")
    assert fn is pretokenized_sft_rollout.generate_rollout


def test_train_output_meets_slimes_contract_and_serves_the_rows(rows_path):
    args = slime_args(rows_path)
    ds = RolloutDataSourceWithBuffer(args)
    assert ds.dataset is None  # --disable-rollout-global-dataset: blank samples
    want = build_rows()
    for step in (0, 1):
        out = call_rollout_fn(pretokenized_sft_rollout.generate_rollout, args, step, ds, evaluation=False)
        assert isinstance(out, RolloutFnTrainOutput)
        contract.assert_train_rollout_contract(out, n_samples_per_prompt=1)
        got = np.array([g[0].tokens for g in out.samples], dtype=np.int32)
        assert got.astype("<i4").tobytes() == want[step * B:(step + 1) * B].astype("<i4").tobytes()
        for (s,) in out.samples:
            assert type(s) is Sample and s.status is Sample.Status.COMPLETED
            assert s.response_length == ROW_LENGTH - 1 and s.loss_mask == [1] * (ROW_LENGTH - 1)
            assert s.effective_response_length == ROW_LENGTH - 1  # what slime's rollout metrics log
    with pytest.raises(Exception, match=r"rollout 2 needs rows \[64, 96\)"):
        call_rollout_fn(pretokenized_sft_rollout.generate_rollout, args, 2, ds, evaluation=False)


def manager(args, dp_size):
    m = types.SimpleNamespace(args=args, custom_convert_samples_to_train_data_func=None,
                              custom_reward_post_process_func=None,
                              train_parallel_config={"dp_size": dp_size, "cp_size": 1, "vpp_size": 1,
                                                     "microbatch_group_size_per_vp_stage": 1})
    for name in ("_post_process_rewards", "_convert_samples_to_train_data", "_split_train_data_by_dp"):
        setattr(m, name, types.MethodType(getattr(RolloutManager, name), m))
    return m


def step_samples(args, step):
    """What RolloutManager._get_rollout_data does with the plugin's output: validate, then flatten."""
    ds = RolloutDataSourceWithBuffer(args)
    ds.sample_index = step * B  # the data source's running counter at that step
    data = call_rollout_fn(pretokenized_sft_rollout.generate_rollout, args, step, ds, evaluation=False).samples
    validate_rollout_id_annotated(data)
    while isinstance(data[0], list):
        data = [s for group in data for s in group]
    return data


def test_slime_turns_the_samples_into_the_training_batch(rows_path):
    args = slime_args(rows_path)
    samples = step_samples(args, 1)
    m = manager(args, dp_size=2)
    train = m._convert_samples_to_train_data(samples)
    want = build_rows()[B:2 * B]
    assert [list(t) for t in train["tokens"]] == want.tolist()
    assert train["response_lengths"] == [ROW_LENGTH - 1] * B
    assert train["loss_masks"] == [[1] * (ROW_LENGTH - 1)] * B
    assert train["rollout_ids"] == list(range(B))  # None -> fresh ids, one rollout per row
    assert train["rollout_mask_sums"] == [ROW_LENGTH - 1] * B
    assert train["truncated"] == [0] * B and train["raw_reward"] == [0] * B
    print("rewards after slime's grpo normalization of groups of one:", sorted(set(map(str, train["rewards"]))))

    # The DP split: each of 2 ranks gets 16 whole rows (one row per micro-batch bin at max_tokens_per_gpu = L).
    refs = m._split_train_data_by_dp(train)
    assert len(refs) == 2
    seen = []
    for r, box in enumerate(refs):
        data = box.inner
        tokens = [t.tolist() if torch.is_tensor(t) else list(t) for t in data["tokens"]]
        assert len(tokens) == B // 2
        assert all(len(t) == ROW_LENGTH for t in tokens)
        assert data["total_lengths"] == [ROW_LENGTH] * B
        masks = data["loss_masks"]
        assert all(int(torch.as_tensor(mk).sum()) == ROW_LENGTH - 1 for mk in masks)
        seen += [tuple(t) for t in tokens]
        print(f"dp rank {r}: rows {data['partition']}, global_batch_sizes {data['global_batch_sizes']}, "
              f"num_microbatches {data['num_microbatches']}")
    assert sorted(seen) == sorted(tuple(row) for row in want.tolist())  # every row once, none twice


def test_loss_positions_are_the_last_l_minus_1_tokens():
    # slime's CP=1 slice (loss.py _extract_per_sample, notes §1.4): log-probs [end-1-response_length, end-1) of the
    # packed sequence predict tokens [end-response_length, end). With response_length = L-1 that is every token
    # of the row but its first, and never a logit of the previous row.
    args = slime_args(os.path.join(ROWS_DIR, "rows.bin"))
    samples = step_samples(args, 0)[:3]
    end = 0
    for s in samples:
        start_of_row, end = end, end + len(s.tokens)
        first_logit = end - s.response_length - 1
        assert first_logit == start_of_row  # the row's own first position, not the previous row's last
        assert sum(s.loss_mask) == len(s.tokens) - 1


def test_the_rows_hash_seen_by_slime_is_the_builds():
    args = slime_args(os.path.join(ROWS_DIR, "rows.parquet"))
    h = hashlib.sha256()
    for step in (0, 1):
        for s in step_samples(args, step):
            h.update(np.asarray(s.tokens, dtype="<i4").tobytes())
    assert h.hexdigest() == hashlib.sha256(build_rows()[:2 * B].tobytes()).hexdigest()
