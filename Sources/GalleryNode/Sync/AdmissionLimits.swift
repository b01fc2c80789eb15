/// How many inbound connections a node holds before they authenticate (protocol.md, "Liveness"
/// and "Threat model"): beyond these, a connection is closed as soon as it is accepted.
package struct AdmissionLimits: Hashable, Sendable {
    /// The most unauthenticated inbound connections at once, from all addresses.
    package var maximumUnauthenticated: Int
    /// The most unauthenticated inbound connections at once from one remote address.
    package var maximumUnauthenticatedPerAddress: Int

    package init(maximumUnauthenticated: Int = 128, maximumUnauthenticatedPerAddress: Int = 16) {
        self.maximumUnauthenticated = max(1, maximumUnauthenticated)
        self.maximumUnauthenticatedPerAddress = max(1, maximumUnauthenticatedPerAddress)
    }
}
