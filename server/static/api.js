// Calls to the trpg-arena API: JSON in and out, the token (from ?token= in the page's address) on every call.

const params = new URLSearchParams(location.search);
if (params.get("token")) sessionStorage.setItem("trpg-arena-token", params.get("token"));
const token = () => sessionStorage.getItem("trpg-arena-token");

export class ApiError extends Error {
  constructor(status, body, retryAfter) {
    super(body && body.message ? body.message : `HTTP ${status}`);
    this.status = status;
    this.body = body;
    this.retryAfter = retryAfter;
  }
}

export async function api(method, path, body, extraHeaders = {}) {
  const headers = {...extraHeaders};
  if (body !== undefined) headers["content-type"] = "application/json";
  if (token()) headers.authorization = `Bearer ${token()}`;
  const response = await fetch(path, {method, headers, body: body === undefined ? undefined : JSON.stringify(body)});
  if (response.status === 204) return null;
  let data = null;
  try { data = await response.json(); } catch { data = null; }
  if (!response.ok) throw new ApiError(response.status, data, Number(response.headers.get("retry-after")) || 0);
  return data;
}

// A key of its own for each change: the server answers a retry of it as it answered the first (never acting twice).
// crypto.randomUUID needs a secure context; a table on the LAN over plain http has only getRandomValues.
function newKey() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

// A change: sent with the revision of the state it was decided on (If-Match: a stale one is refused with 409 and
// the state now) and an Idempotency-Key; a lost answer or a busy database (503) is retried with the same key.
export async function change(method, path, body, revision) {
  const headers = {"idempotency-key": newKey()};
  if (revision !== undefined && revision !== null) headers["if-match"] = `"${revision}"`;
  for (let attempt = 1; ; attempt++) {
    try {
      return await api(method, path, body, headers);
    } catch (e) {
      const lost = !(e instanceof ApiError);  // fetch failed: the change may or may not have been made
      if (attempt >= 4 || !(lost || e.status === 503)) throw e;
      await new Promise((resolve) => setTimeout(resolve, 1000 * ((e && e.retryAfter) || 1)));
    }
  }
}

export function socketUrl(path) {
  const url = new URL(path, location.href);
  url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
  if (token()) url.searchParams.set("token", token());
  return url.toString();
}

let toastTimer = null;
export function toast(message) {
  const el = document.getElementById("toast");
  el.textContent = message;
  el.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.hidden = true; }, 6000);
}

// a request went through: an earlier refusal no longer describes the table
export function clearToast() {
  clearTimeout(toastTimer);
  document.getElementById("toast").hidden = true;
}

// "1 round", "3 rounds"
export function count(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child);
  }
  return node;
}
