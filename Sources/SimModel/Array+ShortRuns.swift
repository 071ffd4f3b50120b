/// Cheap operations on the short arrays the model grows and empties on every edit, export and
/// import (an export's plan and scratch buffers, an import's queue). A store's history and
/// fields are `RowBuffer`s, which have their own.
///
/// The standard library's general forms — `removeAll(keepingCapacity:)` and
/// `append(contentsOf: repeatElement(...))` — go through a range replacement or a generic
/// sequence copy of about a hundred instructions even for one element; a few single-element
/// operations cost a few each (measured on the fleet bench).
extension Array where Element: BitwiseCopyable {
  /// Removes every element, keeping the storage for reuse.
  @inline(__always) mutating func removeAllKeepingCapacity() {
    if count > 4 {
      removeAll(keepingCapacity: true)
      return
    }
    while !isEmpty { removeLast() }
  }

  /// Appends `count` copies of `value`.
  @inline(__always) mutating func append(repeating value: Element, count: Int) {
    if count > 16 {
      append(contentsOf: repeatElement(value, count: count))
      return
    }
    for _ in 0..<Swift.max(count, 0) { append(value) }
  }
}
