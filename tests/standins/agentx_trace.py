"""The synthetic AgentX trace the replay stand-in (agentx_replay.py) sends: conversations of
several turns, deterministic from a seed, and the chat messages of each turn.

In place of InferenceX's semianalysis_cc_traces (SemiAnalysisAI/InferenceX
benchmarks/srt_agentic.sh fetches them with ``hf download``; the lab has no network): N
conversations of 3-7 turns; the first turn's user message has 150-400 words, later ones 20-120;
each answer 4-24 tokens. A turn's prompt is the conversation so far (earlier user turns and
assistant answers) plus the new user message, so the input grows turn by turn as in
coding-agent traces. Tokens are words, as the lab's stand-in engines count them.
--max-context-length drops the turns whose prompt + answer would not fit.
"""

import random


def build_trace(seed, num_conversations, max_context_length=None):
    """[{id, turns: [{user: words, out: n}]}]: deterministic from the seed."""
    rng = random.Random(seed)
    traces = []
    for c in range(num_conversations):
        turns = []
        n_turns = rng.randint(3, 7)
        for t in range(n_turns):
            new_words = rng.randint(150, 400) if t == 0 else rng.randint(20, 120)
            turns.append({"user": new_words, "out": rng.randint(4, 24)})
        traces.append({"id": f"standin-trace-{seed}-{c:04d}", "turns": turns})
    if max_context_length:
        for trace in traces:  # drop the turns whose prompt + answer would not fit
            total, kept = 0, []
            for turn in trace["turns"]:
                total += turn["user"]
                if total + turn["out"] > max_context_length:
                    break
                kept.append(turn)
                total += turn["out"]
            trace["turns"] = kept or trace["turns"][:1]
    return traces


def user_text(conv_index, turn_index, words):
    return " ".join(f"c{conv_index}t{turn_index}w{i}" for i in range(words))


def assistant_text(conv_index, turn_index, words):
    return " ".join(f"c{conv_index}t{turn_index}a{i}" for i in range(words))


def messages_for(conv_index, trace, turn_index):
    """The conversation so far (user, assistant, ...) plus turn turn_index's user message."""
    messages = []
    for t in range(turn_index + 1):
        turn = trace["turns"][t]
        messages.append({"role": "user", "content": user_text(conv_index, t, turn["user"])})
        if t < turn_index:
            messages.append({"role": "assistant",
                             "content": assistant_text(conv_index, t, turn["out"])})
    return messages


def prompt_words(trace, turn_index):
    """(input words, words shared with the previous turn's prompt + answer)."""
    turns = trace["turns"]
    total = sum(t["user"] for t in turns[:turn_index + 1]) + sum(t["out"] for t in turns[:turn_index])
    cached = total - turns[turn_index]["user"] if turn_index else 0
    return total, cached
