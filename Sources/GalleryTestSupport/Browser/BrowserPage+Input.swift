/// Modifier keys held during an input event (DevTools bit values).
package struct KeyModifiers: OptionSet, Hashable, Sendable {
    package let rawValue: Int
    package init(rawValue: Int) { self.rawValue = rawValue }

    /// Alt / Option.
    package static let alt = KeyModifiers(rawValue: 1)
    /// Control.
    package static let control = KeyModifiers(rawValue: 2)
    /// Meta / Command.
    package static let meta = KeyModifiers(rawValue: 4)
    /// Shift.
    package static let shift = KeyModifiers(rawValue: 8)
}

/// A key as `Input.dispatchKeyEvent` needs it: DOM `key`, DOM `code`, Windows virtual key code, and the
/// text it types (nil for keys that type nothing).
package struct Key: Hashable, Sendable {
    /// `KeyboardEvent.key`, such as "ArrowLeft" or "a".
    package var key: String
    /// `KeyboardEvent.code`, such as "ArrowLeft" or "KeyA".
    package var code: String
    /// The Windows virtual key code (which Chromium uses for default actions).
    package var keyCode: Int
    /// The text typed, if any.
    package var text: String?

    /// Makes a key from its parts.
    package init(key: String, code: String, keyCode: Int, text: String? = nil) {
        self.key = key
        self.code = code
        self.keyCode = keyCode
        self.text = text
    }

    package static let arrowLeft = Key(key: "ArrowLeft", code: "ArrowLeft", keyCode: 37)
    package static let arrowUp = Key(key: "ArrowUp", code: "ArrowUp", keyCode: 38)
    package static let arrowRight = Key(key: "ArrowRight", code: "ArrowRight", keyCode: 39)
    package static let arrowDown = Key(key: "ArrowDown", code: "ArrowDown", keyCode: 40)
    package static let enter = Key(key: "Enter", code: "Enter", keyCode: 13, text: "\r")
    package static let escape = Key(key: "Escape", code: "Escape", keyCode: 27)
    package static let tab = Key(key: "Tab", code: "Tab", keyCode: 9)
    package static let backspace = Key(key: "Backspace", code: "Backspace", keyCode: 8)
    package static let delete = Key(key: "Delete", code: "Delete", keyCode: 46)
    package static let space = Key(key: " ", code: "Space", keyCode: 32, text: " ")

    /// A letter or digit key ("a" -> KeyA, "7" -> Digit7).
    package static func character(_ character: Character) -> Key {
        let upper = String(character).uppercased()
        let code = character.isNumber ? "Digit\(upper)" : "Key\(upper)"
        return Key(key: String(character), code: code, keyCode: Int(upper.unicodeScalars.first?.value ?? 0),
                   text: String(character))
    }
}

extension BrowserPage {
    /// Sends one `Input.dispatchMouseEvent` in this page.
    package func mouse(_ type: String, at point: PagePoint, button: String = "none", buttons: Int = 0,
                      clickCount: Int = 0, modifiers: KeyModifiers = []) throws(BrowserError) {
        var params: [String: Any] = ["type": type, "x": point.x, "y": point.y, "button": button,
                                     "buttons": buttons, "modifiers": modifiers.rawValue]
        if clickCount > 0 { params["clickCount"] = clickCount }
        try send("Input.dispatchMouseEvent", params)
    }

    /// A left click at `point` (move, press, release).
    package func click(at point: PagePoint, modifiers: KeyModifiers = []) throws(BrowserError) {
        try mouse("mouseMoved", at: point, modifiers: modifiers)
        try mouse("mousePressed", at: point, button: "left", buttons: 1, clickCount: 1, modifiers: modifiers)
        try mouse("mouseReleased", at: point, button: "left", buttons: 0, clickCount: 1, modifiers: modifiers)
    }

    /// A left click on the centre of the first element matching `selector`.
    package func click(_ selector: String, modifiers: KeyModifiers = []) throws(BrowserError) {
        try click(at: center(of: selector), modifiers: modifiers)
    }

    /// Presses and releases `key` with `modifiers` held (keyDown with its text, then keyUp).
    package func press(_ key: Key, modifiers: KeyModifiers = []) throws(BrowserError) {
        var down: [String: Any] = ["type": key.text == nil || !modifiers.isDisjoint(with: [.alt, .control, .meta])
                                       ? "rawKeyDown" : "keyDown",
                                   "key": key.key, "code": key.code, "modifiers": modifiers.rawValue,
                                   "windowsVirtualKeyCode": key.keyCode, "nativeVirtualKeyCode": key.keyCode]
        if let text = key.text, modifiers.isDisjoint(with: [.alt, .control, .meta]) {
            down["text"] = text
            down["unmodifiedText"] = text
        }
        try send("Input.dispatchKeyEvent", down)
        try send("Input.dispatchKeyEvent", ["type": "keyUp", "key": key.key, "code": key.code,
                                            "modifiers": modifiers.rawValue,
                                            "windowsVirtualKeyCode": key.keyCode, "nativeVirtualKeyCode": key.keyCode])
    }
}
