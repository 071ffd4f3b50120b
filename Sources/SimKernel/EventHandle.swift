/// Identifies one scheduled event so that it can be cancelled.
///
/// A handle stays safe to use after its event ran or was cancelled: cancelling it again does
/// nothing, because the slot it names is matched against the event's unique order key.
public struct EventHandle: Hashable, Sendable, BitwiseCopyable {
  @usableFromInline var slot: UInt32
  @usableFromInline var order: UInt64

  @inlinable init(slot: UInt32, order: UInt64) {
    self.slot = slot
    self.order = order
  }

  /// A handle that names no event; cancelling it returns `false`.
  public static let none = EventHandle(slot: UInt32.max, order: 0)
}
