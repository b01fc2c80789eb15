/// The salt of the node's replica ID (`ReplicaBinding`), changed when storage recovery draws a
/// new incarnation while the node opens its directory.
final class SaltBox {
    var value: UInt64
    init(_ value: UInt64) { self.value = value }
}
