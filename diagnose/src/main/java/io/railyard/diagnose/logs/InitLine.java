package io.railyard.diagnose.logs;

/** A line of NCCL's init that a conclusion may cite: its number and text. */
record InitLine(long number, String text) {}
