// The sign-in link console-token prints carries the token after #, which
// the browser never sends to the server: put it in the form's field and
// take it out of the address. Signing in is the person's press of the
// button (a POST from this page), never the link's opening.
(() => {
  const m = /^#token=(.+)$/.exec(location.hash);
  if (!m) return;
  document.getElementById('token').value = decodeURIComponent(m[1]);
  history.replaceState(null, '', location.pathname);
  document.querySelector('form button').focus();
})();
