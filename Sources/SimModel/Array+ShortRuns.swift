/// Cheap operations on the short arrays the model grows and empties on every edit, export and
/// import (a record's fields, an export's plan, a store's history).
///
/// The standard library's general forms — `removeAll(keepingCapacity:)`, `removeFirst(_:)`,
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

  /// Removes the first `k` elements, keeping the storage for reuse.
  @inline(__always) mutating func removeFirstKeepingCapacity(_ k: Int) {
    if k == count {
      removeAllKeepingCapacity()
    } else if k > 0 {
      removeFirst(k)
    }
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
