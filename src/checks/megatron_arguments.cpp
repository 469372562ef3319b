// A Megatron-LM command's arguments as its argument dump would print them (checks/megatron_arguments.h).
#include "checks/megatron_arguments.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"
#include "core/text.h"
#include "layout/layout.h"
#include "layout/model_rules.h"
#include "layout/model_shape.h"

namespace openrecipes::checks {
namespace {

constexpr std::size_t kMaxPatternEntries = std::size_t{1} << 20;
constexpr int kMaxPatternDepth = 64;  // nested '(' (Megatron's patterns use one)
// Sizes a command may give (layers, widths, parallel sizes, the vocabulary): up to 2^31, so products of two stay exact.
constexpr std::int64_t kMaxCommandSize = std::int64_t{1} << 31;
const char* const kCommandFix = "give the training command as the run starts it (the arguments of pretrain_gpt.py)";

// A --moe-layer-freq pattern, read as Python evaluates it: sums of lists, lists times a whole number, parentheses.
class PatternReader {
 public:
  PatternReader(std::string_view text, const std::string& where) : s_(text), where_(where) {}
  std::vector<int> read() {
    auto v = sum();
    skip();
    if (at_ < s_.size()) bad("unexpected '" + std::string(1, s_[at_]) + "'");
    return v;
  }

 private:
  std::string_view s_;
  const std::string& where_;
  std::size_t at_ = 0;
  int depth_ = 0;
  std::size_t built_ = 0;  // entries built in all, across every step: the work a pattern may ask for is bounded too

  void build(std::size_t n) {
    built_ += n;
    if (built_ > 4 * kMaxPatternEntries) bad("a pattern that builds more than 2^22 entries in all");
  }

  [[noreturn]] void bad(const std::string& why) const {
    throw InputError(where_ + ": --moe-layer-freq",
                     fmt::format("{} at character {} of {}", why, at_ + 1, quote_for_message(s_)),
                     "give a whole number or a pattern of 0/1 lists such as ([0]*1+[1]*15)");
  }
  void skip() {
    while (at_ < s_.size() && (s_[at_] == ' ' || s_[at_] == '\t')) ++at_;
  }
  bool take(char c) {
    skip();
    if (at_ < s_.size() && s_[at_] == c) return ++at_, true;
    return false;
  }
  std::int64_t number() {
    skip();
    const std::size_t from = at_;
    while (at_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[at_]))) ++at_;
    const auto n = parse_int(s_.substr(from, at_ - from));
    if (!n) bad("expected a whole number");
    return *n;
  }
  std::vector<int> repeated(const std::vector<int>& v, std::int64_t n) {
    if (n < 0 || (n > 0 && v.size() > kMaxPatternEntries / static_cast<std::size_t>(n)))
      bad(fmt::format("a list repeated {} times", n));
    if (v.empty() || n == 0) return {};
    build(v.size() * static_cast<std::size_t>(n));
    std::vector<int> out;
    for (std::int64_t i = 0; i < n; ++i) out.insert(out.end(), v.begin(), v.end());
    return out;
  }
  std::vector<int> factor() {
    if (take('(')) {
      if (++depth_ > kMaxPatternDepth) bad(fmt::format("parentheses nested more than {} deep", kMaxPatternDepth));
      auto v = sum();
      if (!take(')')) bad("expected ')'");
      --depth_;
      return v;
    }
    if (take('[')) {
      std::vector<int> v;
      if (take(']')) return v;
      do {
        if (v.size() >= kMaxPatternEntries) bad("a list of more than 2^20 layers");
        const auto n = number();
        if (n != 0 && n != 1) bad("a layer is 1 (MoE) or 0 (dense), not " + std::to_string(n));
        v.push_back(static_cast<int>(n));
      } while (take(','));
      if (!take(']')) bad("expected ']'");
      return v;
    }
    skip();
    if (at_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[at_]))) {  // N * [..]
      const auto n = number();
      if (!take('*')) bad("expected '*' after a count");
      return repeated(factor(), n);
    }
    bad("expected a list, '(' or a count");
  }
  std::vector<int> product() {
    auto v = factor();
    while (take('*')) v = repeated(v, number());
    return v;
  }
  std::vector<int> sum() {
    auto v = product();
    while (take('+')) {
      const auto w = product();
      if (v.size() + w.size() > kMaxPatternEntries) bad("a pattern of more than 2^20 layers");
      build(w.size());
      v.insert(v.end(), w.begin(), w.end());
    }
    return v;
  }
};

// A flag the argument table does not have (argparse: unrecognized arguments): read_training_command then tries miles'
// table for a train.py.
class UnknownArgumentError : public InputError {
 public:
  using InputError::InputError;
};

// The first spelling of the option of `table` that sets `dest` ("--attention-backend"), else `dest`.
std::string flag_of(const OptionTable& table, const std::string& dest) {
  const OptionSpec* o = table.find_dest(dest);
  return o && !o->flags.empty() ? o->flags.front() : dest;
}

// Every destination of `table` with its default as the dump prints it.
std::map<std::string, std::string> printed_defaults(const OptionTable& table) {
  std::map<std::string, std::string> out;
  for (const auto& o : table.options()) out.emplace(o.dest, o.printed_default());
  return out;
}

std::string word_text(const layout::CommandWord& w) { return w.literal().value_or(w.shown()); }

// validate_args' and TransformerConfig's recompute rules (--recompute-activations is selective; selective takes no
// method or layer count; full needs a layer count) and position rules (the legacy RoPE flag; positions cover the
// sequence), on `v` as resolve_megatron_arguments builds it. InputError naming `where` for what Megatron refuses.
void validate_recompute_and_positions(std::map<std::string, std::string>& v, const std::string& where) {
  if (v["recompute_activations"] == "True")
    v["recompute_granularity"] = "selective";  // and validate_args deletes the flag
  if (v["recompute_granularity"] == "selective" && v["recompute_method"] != "None")
    throw InputError(where, "--recompute-method with selective recompute",
                     "drop --recompute-method (validate_args: it is for full recompute only)");
  if (v["recompute_granularity"] == "selective" && v["recompute_num_layers"] != "None")
    throw InputError(where, "--recompute-num-layers with selective recompute",
                     "drop --recompute-num-layers (TransformerConfig: it must be None for selective recompute)");
  if (v["use_rotary_position_embeddings"] == "True") v["position_embedding_type"] = "rope";  // the legacy RoPE flag
  if (const auto positions = parse_int(v["max_position_embeddings"]), seq = parse_int(v["seq_length"]);
      positions && seq && *positions < *seq)
    throw InputError(where, fmt::format("--max-position-embeddings {} is below --seq-length {}", *positions, *seq),
                     "give --max-position-embeddings at least the sequence length (validate_args asserts it)");
  if (v["recompute_granularity"] == "full" && v["recompute_num_layers"] == "None")
    throw InputError(where, "full recompute without --recompute-num-layers",
                     "give --recompute-method and --recompute-num-layers (TransformerConfig raises without them)");
}

// TransformerConfig's conditions for --overlap-moe-expert-parallel-comm: experts with EP > 1, the alltoall or flex
// dispatcher, no full recompute, virtual stages when PP > 1.
void validate_moe_overlap(std::map<std::string, std::string>& v, std::int64_t pp, const std::string& where) {
  if (v["overlap_moe_expert_parallel_comm"] == "True") {  // TransformerConfig.__post_init__'s conditions
    const char* broken = v["num_experts"] == "None" || parse_int(v["expert_model_parallel_size"]).value_or(1) < 2
                             ? "expert parallelism (EP > 1)"
                         : v["moe_token_dispatcher_type"] == "allgather" ? "the alltoall or flex token dispatcher"
                         : v["recompute_granularity"] == "full"          ? "no full recompute"
                         : pp > 1 && v["virtual_pipeline_model_parallel_size"] == "None" &&
                                 v["pipeline_model_parallel_layout"] == "None"  // a layout sets the stages
                             ? "virtual pipeline stages when PP > 1"
                             : nullptr;
    if (broken)
      throw InputError(where, std::string("--overlap-moe-expert-parallel-comm needs ") + broken,
                       "drop --overlap-moe-expert-parallel-comm, or give what it needs");
  }
}

}  // namespace

std::string moe_layer_freq_printed(const std::string& value, const std::string& where) {
  if (value.find('[') == std::string::npos) {
    const auto n = parse_int(value);
    if (!n || *n < 1)
      throw InputError(where + ": --moe-layer-freq", "is " + quote_for_message(value) + ", not a whole number from 1",
                       "give a whole number or a pattern of 0/1 lists such as ([0]*1+[1]*15)");
    return std::to_string(*n);
  }
  return fmt::format("[{}]", fmt::join(PatternReader(value, where).read(), ", "));
}

std::map<std::string, std::string> resolve_megatron_arguments(const std::vector<layout::CommandWord>& args,
                                                              const OptionTable& table, std::int64_t world_size,
                                                              const std::string& where,
                                                              std::optional<std::int64_t> tokenizer_vocab) {
  std::map<std::string, std::string> v = printed_defaults(table);
  const auto parsed = parse_arguments(args, &table, {});
  if (!parsed.problems.empty()) {
    const auto& p = parsed.problems.front();
    throw InputError(p.word ? fmt::format("{}:{}:{}", where, p.word->line, p.word->column) : where, p.what,
                     kCommandFix);
  }
  for (const auto& [dest, a] : parsed.by_dest) {
    if (!a.spec)
      throw UnknownArgumentError(where, quote_for_message(a.flag) + " is not an argument of Megatron-LM's parser",
                                 kCommandFix);
    if (a.constant) {
      v[dest] = *a.constant;
      continue;
    }
    const auto& words = a.occurrences.back();
    std::vector<std::string> texts;
    for (const auto& w : words) texts.push_back(word_text(w));
    v[dest] = texts.size() == 1 ? texts[0] : fmt::format("[{}]", fmt::join(texts, ", "));
    if (a.spec->type == "enum" && texts.size() == 1) {  // the member as the dump prints it: AttnBackend.unfused
      const auto member = a.spec->enum_values.find(texts[0]);
      if (member != a.spec->enum_values.end()) {
        v[dest] = member->second;
      } else if (words[0].literal()) {  // argparse: invalid value (the enum has no such member)
        std::vector<std::string> names;
        for (const auto& [name, printed] : a.spec->enum_values) names.push_back(name);
        throw InputError(fmt::format("{}:{}:{}", where, words[0].line, words[0].column),
                         fmt::format("{} {} is not one of its values: {}", a.flag, quote_for_message(texts[0]),
                                     fmt::join(names, ", ")),
                         kCommandFix);
      }
    }
    const auto& choices = a.spec->choices;  // argparse: invalid choice
    if (!choices.empty() && texts.size() == 1 && words[0].literal() &&
        std::find(choices.begin(), choices.end(), texts[0]) == choices.end())
      throw InputError(fmt::format("{}:{}:{}", where, words[0].line, words[0].column),
                       fmt::format("{} {} is not one of its choices: {}", a.flag, quote_for_message(texts[0]),
                                   fmt::join(choices, ", ")),
                       kCommandFix);
  }

  // validate_args (megatron/training/arguments.py at d98e8a64).
  // A size the command gives: a whole number from 1 to 2^31 (a variable cannot be planned: its value is not here).
  auto number = [&](const std::string& dest) -> std::optional<std::int64_t> {
    auto it = v.find(dest);
    if (it == v.end() || it->second == "None") return std::nullopt;
    const auto n = parse_int(it->second);
    if (!n || *n < 1 || *n > kMaxCommandSize) {
      throw InputError(where,
                       fmt::format("{} is {}, not a whole number from 1 to 2^31", flag_of(table, dest),
                                   quote_for_message(it->second)),
                       "give the number in the command (plan reads it as written: a variable has no value here)");
    }
    return n;
  };
  if (v["num_experts"] == "0") v["num_experts"] = "None";  // validate_args: 0 experts is none
  auto on = [&](const std::string& dest) { return v.count(dest) && v[dest] == "True"; };
  const std::int64_t tp = number("tensor_model_parallel_size").value_or(1);
  const std::int64_t pp = number("pipeline_model_parallel_size").value_or(1);
  const std::int64_t cp = number("context_parallel_size").value_or(1);
  if (world_size < 1 || world_size > kMaxCommandSize || tp * pp > kMaxCommandSize || tp * pp * cp > kMaxCommandSize ||
      world_size % (tp * pp * cp) != 0)
    throw InputError(where, fmt::format("{} GPUs are not a multiple of TP {} x PP {} x CP {}", world_size, tp, pp, cp),
                     "give a GPU count that makes whole model replicas");
  v["world_size"] = std::to_string(world_size);
  v["data_parallel_size"] = std::to_string(world_size / (tp * pp * cp));
  const auto hidden = number("hidden_size"), heads = number("num_attention_heads");
  if (hidden && !number("ffn_hidden_size"))
    v["ffn_hidden_size"] = std::to_string(on("swiglu") ? (4 * *hidden * 2 / 3) / 64 * 64 : 4 * *hidden);
  if (hidden && heads && !number("kv_channels")) {
    if (*hidden % *heads != 0)  // validate_args asserts it
      throw InputError(where,
                       fmt::format("--hidden-size {} is not a multiple of --num-attention-heads {}", *hidden, *heads),
                       "give --kv-channels, or a hidden size the heads divide");
    v["kv_channels"] = std::to_string(*hidden / *heads);
  }
  if (v["num_experts"] != "None" && !number("moe_ffn_hidden_size")) v["moe_ffn_hidden_size"] = v["ffn_hidden_size"];
  if (!number("expert_tensor_parallel_size")) v["expert_tensor_parallel_size"] = std::to_string(tp);
  if (tp == 1) v["sequence_parallel"] = "False";
  validate_recompute_and_positions(v, where);
  if (on("fp16") && on("bf16"))  // arguments.py: with --fp16, assert not args.bf16
    throw InputError(where, "--fp16 and --bf16 are both given", "give one of them (validate_args asserts it)");
  // The virtual pipeline size (a --pipeline-model-parallel-layout is not read here: plan refuses it by name).
  if (number("num_virtual_stages_per_pipeline_rank") && number("num_layers_per_virtual_pipeline_stage"))
    throw InputError(
        where, "--num-layers-per-virtual-pipeline-stage and --num-virtual-stages-per-pipeline-rank are both given",
        "give one of them (validate_args allows one)");
  if (const auto stages = number("num_virtual_stages_per_pipeline_rank")) {
    v["virtual_pipeline_model_parallel_size"] = *stages == 1 ? "None" : std::to_string(*stages);
  } else if (const auto per_stage = number("num_layers_per_virtual_pipeline_stage")) {
    std::int64_t layers = number("num_layers").value_or(0) + (on("account_for_embedding_in_pipeline_split") ? 1 : 0) +
                          (on("account_for_loss_in_pipeline_split") ? 1 : 0);
    if (layers % pp != 0 || (layers / pp) % *per_stage != 0)
      throw InputError(
          where,
          fmt::format("{} layers{} do not split into PP {} stages of whole virtual stages of {} layers", layers,
                      layers != number("num_layers").value_or(0) ? " (the embedding or loss counted)" : "", pp,
                      *per_stage),
          layers % pp != 0
              ? fmt::format("give a PP that divides the {} layers", layers)
              : "give --num-layers-per-virtual-pipeline-stage that divides the layers of a pipeline stage");
    const std::int64_t vpp = layers / pp / *per_stage;
    v["virtual_pipeline_model_parallel_size"] = vpp == 1 ? "None" : std::to_string(vpp);
  } else {
    v["virtual_pipeline_model_parallel_size"] = "None";
  }
  validate_moe_overlap(v, pp, where);
  // validate_args: the interleaved schedule without P2P overlap needs PP > 2.
  if (v["virtual_pipeline_model_parallel_size"] != "None" && v["overlap_p2p_comm"] == "False" && pp <= 2)
    throw InputError(where, fmt::format("--no-overlap-p2p-communication with virtual stages needs PP > 2, not {}", pp),
                     "drop --no-overlap-p2p-communication, or use PP 3 or more");
  if (auto it = v.find("moe_layer_freq"); it != v.end() && it->second != "None") {
    it->second = moe_layer_freq_printed(it->second, where);
    const auto layers = number("num_layers");
    const bool listed = it->second.front() == '[';
    const auto entries =
        std::count(it->second.begin(), it->second.end(), '0') + std::count(it->second.begin(), it->second.end(), '1');
    if (layers && listed && entries != *layers)
      throw InputError(where + ": --moe-layer-freq",
                       fmt::format("gives {} layers, the model has {} (--num-layers)", entries, *layers),
                       "give one 0 or 1 per layer");
  }
  auto vocab = number("vocab_size");
  if (!vocab) vocab = tokenizer_vocab;
  if (vocab && (*vocab < 1 || *vocab > kMaxCommandSize))
    throw InputError(where, fmt::format("a vocabulary of {} is not a size from 1 to 2^31", *vocab),
                     "give the tokenizer's vocabulary");
  if (vocab) {
    v["vocab_size"] = std::to_string(*vocab);  // as given, or the tokenizer's standing for --vocab-size
    const std::int64_t multiple = number("make_vocab_size_divisible_by").value_or(layout::kVocabDivisibleBy) * tp;
    v["padded_vocab_size"] = std::to_string(layout::padded_vocab(*vocab, multiple));
  }
  return v;
}

namespace {

// What the memory model does not cover: destination, its flag, and what it would leave out (docs/memory-model.md).
struct NotModelled {
  const char* dest;
  const char* flag;
  const char* what;
  const char* neutral = nullptr;  ///< a value besides the default that means "off" (validate_args sets it so)
};
constexpr const char* kCudaGraphs = "CUDA graphs (their memory pool; the host launches they remove)";
constexpr NotModelled kNotModelled[] = {
    {"fp8", "--fp8-format", "FP8 weight casts, transposes and scaling state"},
    {"fp8_param_gather", "--fp8-param-gather", "FP8 parameters kept for the all-gather"},
    {"fp4", "--fp4-format", "FP4 weights"},
    {"mtp_num_layers", "--mtp-num-layers", "multi-token prediction layers"},
    // validate_args turns cpu_offloading on from the layer count (the parser has no --cpu-offloading).
    {"cpu_offloading_num_layers", "--cpu-offloading-num-layers", "activations offloaded to the host"},
    {"fine_grained_activation_offloading", "--fine-grained-activation-offloading", "activations offloaded to the host"},
    {"optimizer_cpu_offload", "--optimizer-cpu-offload", "optimizer state offloaded to the host"},
    {"use_torch_fsdp2", "--use-torch-fsdp2", "FSDP's sharded weights and gradients"},
    {"use_megatron_fsdp", "--use-megatron-fsdp", "FSDP's sharded weights and gradients"},
    {"pipeline_model_parallel_layout", "--pipeline-model-parallel-layout", "a hand-written pipeline layout"},
    {"hybrid_layer_pattern", "--hybrid-layer-pattern", "Mamba and hybrid layers"},
    {"use_precision_aware_optimizer", "--use-precision-aware-optimizer", "optimizer state in other precisions"},
    {"main_grads_dtype", "--main-grads-dtype",
     "gradients in another precision (Megatron-LM allows it with the precision-aware optimizer only)", "torch.float32"},
    {"tensor_parallel_num_weight_shards", "--tensor-parallel-num-weight-shards", "weights sharded beyond TP", "1"},
    {"expert_tensor_parallel_num_weight_shards", "--expert-tensor-parallel-num-weight-shards",
     "expert weights sharded beyond ETP", "1"},
    // CUDA graphs keep their captured buffers in a pool of their own and take the host's launches off the step (the
    // step-time model's host lane); --enable-cuda-graph and --external-cuda-graph are validate_args' old spellings.
    {"cuda_graph_impl", "--cuda-graph-impl", kCudaGraphs},
    {"enable_cuda_graph", "--enable-cuda-graph", kCudaGraphs},
    {"external_cuda_graph", "--external-cuda-graph", kCudaGraphs},
    {"optimizer_cuda_graph", "--optimizer-cuda-graph", "the optimizer step captured in a CUDA graph"},
    // TransformerConfig turns it into selective recompute of the whole MoE layer (recompute_modules gains "moe").
    {"moe_layer_recompute", "--moe-layer-recompute", "the MoE layer recomputed (selective recompute of \"moe\")"},
    // random.py's CheckpointFunction keeps 1/TP of each recomputed layer's input (full recompute without SP).
    {"distribute_saved_activations", "--distribute-saved-activations",
     "recomputed layers' inputs split over the TP ranks"},
};

// The GPU count a launcher flag gives among words [first, last): the last occurrence wins, as argparse reads it (`--f
// v` or `--f=v`); nullopt when absent. A variable, or anything but a whole number from 1 to 2^24, is refused: plan
// cannot count GPUs it does not see.
std::optional<std::int64_t> count_of(const std::vector<layout::CommandWord>& words,
                                     const std::vector<std::string>& spellings, std::size_t first, std::size_t last,
                                     const std::string& where) {
  std::optional<std::string> value;
  const layout::CommandWord* at = nullptr;
  bool variable = false;
  for (std::size_t i = first; i < std::min(last, words.size()); ++i)
    for (const auto& f : spellings) {
      const std::string lead = words[i].leading_literal();
      if (lead == f && !words[i].literal()) continue;  // "--f$X": not this flag
      if (words[i].literal() == f && i + 1 < std::min(last, words.size())) {
        value = words[i + 1].literal(), variable = !value, at = &words[i + 1];
      } else if (const auto lit = words[i].literal(); lit && lit->starts_with(f + "=")) {
        value = lit->substr(f.size() + 1), variable = false, at = &words[i];
      } else if (!words[i].literal() && lead.starts_with(f + "=")) {
        value.reset(), variable = true, at = &words[i];
      }
    }
  if (!at) return std::nullopt;
  const auto n = value ? parse_int(*value) : std::nullopt;
  if (variable || !n || *n < 1 || *n > (std::int64_t{1} << 24))
    throw InputError(fmt::format("{}:{}:{}", where, at->line, at->column),
                     fmt::format("{} is {}, not a GPU count plan can read", spellings.front(),
                                 variable ? at->shown() : quote_for_message(value.value_or(""))),
                     "give plan --gpus G (the GPUs the command runs on)");
  return n;
}

}  // namespace

TrainingCommand read_training_command(std::string_view text, const std::string& where, std::optional<std::int64_t> gpus,
                                      std::optional<std::int64_t> tokenizer_vocab) {
  const auto words = layout::split_command(text, where);
  const std::size_t env_end = layout::assignment_count(words);
  std::size_t args_from = env_end;  // bare arguments: the first word a flag
  std::string script;
  if (env_end < words.size() && !words[env_end].leading_literal().starts_with("-")) {
    for (std::size_t i = env_end; i < words.size(); ++i)  // the script may sit under a variable: $MEGATRON_LM/x.py
      if (const std::string w = word_text(words[i]); w.ends_with(".py")) {
        script = w, args_from = i + 1;
        break;
      }
    if (script.empty())
      throw InputError(where, "no entry script (a word ending in .py) and no arguments of one",
                       "give the training command (torchrun ... pretrain_gpt.py --num-layers ...) or its arguments");
  }
  TrainingCommand out;
  const std::string base =
      script.substr(script.find_last_of('/') == std::string::npos ? 0 : script.find_last_of('/') + 1);
  const bool slime = base == "train.py" || base == "train_async.py";  // slime's and miles' entry scripts
  if (base.starts_with("pretrain_") && base != "pretrain_gpt.py")     // Megatron's T5, BERT, Mamba, VLM, ... entries
    throw NotModelledError(where, quote_for_message(base) + " is not modelled: the memory model plans GPT decoders",
                           "plan a pretrain_gpt.py command (or slime's train.py)");
  out.framework = slime ? "slime" : "megatron-lm";
  const OptionTable* table = OptionTable::bundled(out.framework);
  if (gpus) {
    if (*gpus < 1 || *gpus > (std::int64_t{1} << 24))
      throw InputError("--gpus", fmt::format("{} is not a GPU count", *gpus), "give a whole number from 1");
    out.gpus = *gpus, out.gpus_from = "--gpus";
  } else if (slime) {
    const auto nodes = count_of(words, {"--actor-num-nodes"}, args_from, words.size(), where);
    const auto per_node = count_of(words, {"--actor-num-gpus-per-node"}, args_from, words.size(), where);
    if (per_node) out.gpus = nodes.value_or(1) * *per_node, out.gpus_from = "slime", out.gpus_per_node = per_node;
    if (nodes && !per_node)
      throw InputError(where, "--actor-num-nodes without --actor-num-gpus-per-node", "give plan --gpus G");
  } else if (args_from > env_end) {
    const auto per_node = count_of(words, {"--nproc-per-node", "--nproc_per_node"}, env_end, args_from - 1, where);
    const auto nodes = count_of(words, {"--nnodes"}, env_end, args_from - 1, where);
    if (per_node) out.gpus = nodes.value_or(1) * *per_node, out.gpus_from = "torchrun", out.gpus_per_node = per_node;
    if (nodes && !per_node) throw InputError(where, "--nnodes without --nproc-per-node", "give plan --gpus G");
  }
  if (out.gpus < 1)
    throw InputError(where, "the command does not say how many GPUs it runs on",
                     "give plan --gpus G (or torchrun's --nproc-per-node and --nnodes in the command)");
  const std::vector<layout::CommandWord> args(words.begin() + static_cast<std::ptrdiff_t>(args_from), words.end());
  try {
    out.arguments = resolve_megatron_arguments(args, *table, out.gpus, where, tokenizer_vocab);
  } catch (const UnknownArgumentError&) {
    // slime's and miles' entry script is train.py alike: a flag slime's table lacks may be one of miles' own.
    const OptionTable* miles = OptionTable::bundled("miles");
    if (!slime || !miles) throw;
    out.arguments = resolve_megatron_arguments(args, *miles, out.gpus, where, tokenizer_vocab);
    out.framework = "miles";
  }
  refuse_not_modelled(out.arguments, where);
  if (out.arguments["padded_vocab_size"] == "None")
    throw InputError(where, "the command does not give the vocabulary size (its tokenizer's)",
                     "give plan --vocab-size V, the tokenizer's vocabulary (Megatron pads it as the run would)");
  return out;
}

void refuse_not_modelled(const std::map<std::string, std::string>& arguments, const std::string& where) {
  static const auto defaults = printed_defaults(*OptionTable::bundled("megatron-lm"));
  auto value = [&](const char* dest) {
    const auto it = arguments.find(dest);
    return it == arguments.end() ? std::string() : it->second;
  };
  const std::string fix = "(docs/memory-model.md, \"What is not modelled\")";
  if (const std::string o = value("optimizer"); !o.empty() && o != "adam")
    throw NotModelledError(where,
                           "--optimizer " + quote_for_message(o) +
                               " is not modelled: the memory model counts Adam's state (12 bytes a parameter)",
                           "plan the command with --optimizer adam " + fix);
  if (const std::string m = value("recompute_modules"); value("recompute_granularity") == "selective" && !m.empty() &&
                                                        m != "None" && m != "core_attn" && m != "[core_attn]" &&
                                                        m != "['core_attn']")
    throw NotModelledError(where,
                           "--recompute-modules " + m +
                               " is not modelled: selective recompute is counted as recomputing core attention only",
                           "plan the command without --recompute-modules " + fix);
  for (const auto& n : kNotModelled) {
    const auto it = arguments.find(n.dest);
    if (it != arguments.end() && it->second != defaults.at(n.dest) && !(n.neutral && it->second == n.neutral))
      throw NotModelledError(where,
                             fmt::format("{} is not modelled: the memory model has no term for {}", n.flag, n.what),
                             fmt::format("plan the command without {} {}", n.flag, fix));
  }
  if (value("bf16") == "False" && value("fp16") == "False")
    throw NotModelledError(where,
                           "training without --bf16 or --fp16 (FP32) is not modelled: the memory model counts 2-byte "
                           "weights and activations",
                           "plan the command with --bf16 " + fix);
}

namespace {

// What the memory model reads as a word rather than a size (a size's variable is refused where it is read): a variable
// there would be read as no value at all.
constexpr const char* kModelWords[] = {"transformer_impl",  "attention_backend", "recompute_granularity",
                                       "recompute_method",  "recompute_modules", "position_embedding_type",
                                       "attention_dropout", "hidden_dropout",    "optimizer"};

}  // namespace

void refuse_variable_words(const std::map<std::string, std::string>& arguments, const std::string& where) {
  for (const char* dest : kModelWords)
    if (const auto it = arguments.find(dest); it != arguments.end() && it->second.find('$') != std::string::npos)
      throw InputError(where,
                       fmt::format("{} is {}: the memory model needs its value, and a variable has none here",
                                   flag_of(*OptionTable::bundled("megatron-lm"), dest), it->second),
                       "give the value in the command");
}

CommandRun read_command_run(std::string_view text, const std::string& where, std::optional<std::int64_t> gpus,
                            std::optional<std::int64_t> tokenizer_vocab) {
  CommandRun out;
  out.command = read_training_command(text, where, gpus, tokenizer_vocab);
  refuse_variable_words(out.command.arguments, where);
  try {  // the readers' own fixes speak of argument dumps: here the values are the command's
    out.shape = layout::shape_from_arguments(out.command.arguments, where);
    out.setup = layout::setup_from_arguments(out.command.arguments, where);
  } catch (const InputError& e) {
    // The readers name a dump's field ("file: num_layers", "the argument dump has no num_layers"): name the flag.
    const OptionTable& megatron = *OptionTable::bundled("megatron-lm");
    const std::string missing = "the argument dump has no ";
    if (e.problem().starts_with(missing)) {
      const std::string flag = flag_of(megatron, e.problem().substr(missing.size()));
      throw InputError(where, "the command does not give " + flag, "give " + flag + " in the command");
    }
    if (e.where().starts_with(where + ": ")) {
      const std::string flag = flag_of(megatron, e.where().substr(where.size() + 2));
      throw InputError(where, flag + " " + e.problem(), "give " + flag + " its value in the command");
    }
    throw InputError(e.where(), e.problem(),
                     "check the model's sizes in the command (--num-layers, --hidden-size, ...)");
  }
  // slime and miles pack rows by --max-tokens-per-gpu under --use-dynamic-batch-size: a micro-batch is one bin of
  // max_tokens_per_gpu x CP tokens (layout::pack_micro_batches, as registry::recipe_memory reads a recipe).
  if (const auto& a = out.command.arguments; out.command.framework == "slime" && a.count("use_dynamic_batch_size") &&
                                             a.at("use_dynamic_batch_size") == "True") {
    const auto bin = a.count("max_tokens_per_gpu") ? parse_int(a.at("max_tokens_per_gpu")) : std::nullopt;
    if (!bin || *bin < 1 || *bin > kMaxCommandSize)
      throw InputError(where, "--use-dynamic-batch-size without a whole --max-tokens-per-gpu",
                       "give --max-tokens-per-gpu N (tokens a GPU packs into one micro-batch)");
    layout::pack_micro_batches(out.setup, *bin, out.setup.layout.cp);
    out.setup.layout.max_tokens_per_gpu = *bin;
  }
  auto broken = layout::violations(out.setup.layout, out.command.gpus, out.setup.global_batch);  // SPEC §6's
  if (broken.empty()) broken = layout::model_violations(out.shape, out.setup);
  if (!broken.empty())
    throw InputError(where, "its layout breaks a rule: " + broken.front().what,
                     broken.front().fix.empty() ? "fix the layout in the command" : broken.front().fix);
  return out;
}

}  // namespace openrecipes::checks
