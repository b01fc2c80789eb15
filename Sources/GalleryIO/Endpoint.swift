/// A host and port, parsed from "HOST:PORT" or "[IPv6]:PORT".
///
/// The host is a name or a numeric address; it is resolved only when connecting or listening.
/// Port 0 asks a `Listener` for an ephemeral port.
package struct Endpoint: Hashable, Sendable, CustomStringConvertible {
    /// The host name or numeric address, without brackets.
    package var host: String
    /// The TCP port.
    package var port: UInt16

    /// Makes an endpoint from its parts; the host is checked when it is used.
    package init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses "HOST:PORT" or "[IPv6]:PORT"; nil when the text is not of that form.
    package init?(_ text: String) {
        let hostPart: Substring
        let portPart: Substring
        if text.hasPrefix("[") {
            guard let closing = text.firstIndex(of: "]") else { return nil }
            hostPart = text[text.index(after: text.startIndex)..<closing]
            let rest = text[text.index(after: closing)...]
            guard rest.first == ":" else { return nil }
            portPart = rest.dropFirst()
            // Brackets are only for IPv6 literals (which always contain a colon).
            guard hostPart.contains(":") else { return nil }
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
            // An unbracketed IPv6 literal would make the port ambiguous.
            guard !hostPart.contains(":") else { return nil }
        }
        guard Endpoint.isPlausibleHost(hostPart),
              !portPart.isEmpty, portPart.count <= 5,
              portPart.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let port = UInt16(portPart)
        else { return nil }
        self.init(host: String(hostPart), port: port)
    }

    /// "host:port", with the host in brackets when it is an IPv6 literal.
    package var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// True when `host` is non-empty and free of characters no host name or address contains.
    static func isPlausibleHost<S: StringProtocol>(_ host: S) -> Bool {
        !host.isEmpty && !host.unicodeScalars.contains { scalar in
            scalar == "[" || scalar == "]" || scalar == "/" || scalar.value == 0
                || scalar.properties.isWhitespace
        }
    }
}
