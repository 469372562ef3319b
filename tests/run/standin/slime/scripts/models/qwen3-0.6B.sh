# A STAND-IN for slime's scripts/models/qwen3-0.6B.sh (tests of `openrecipes run` only): a MODEL_ARGS array of the
# same form, with a value that honours an environment knob and a quoted word, as slime's Qwen3 scripts have.
MODEL_ARGS=(
   --num-layers 28  # a comment inside the array, as slime's scripts have
   --hidden-size 1024
   --rotary-base "${MODEL_ARGS_ROTARY_BASE:-1000000}"
   --moe-layer-freq "[0,1]"
)
