extension UInt64 {
  /// Rotates left by `k` in 1...63: masking shifts, so the rotation is one instruction (and the
  /// random streams' hot path stays inlined).
  @inlinable @inline(__always) func rotatedLeft(_ k: UInt64) -> UInt64 { (self &<< k) | (self &>> (64 &- k)) }
}
