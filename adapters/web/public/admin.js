// The admin pages work without this script (plain forms and links); it only asks before
// destructive actions (forms with data-confirm) and keeps a button from being pressed twice.
for (const form of document.querySelectorAll('form')) {
  form.addEventListener('submit', (event) => {
    const question = form.dataset.confirm;
    if (question && !window.confirm(question)) {
      event.preventDefault();
      return;
    }
    // After this submit has started: a second press would send the form again.
    setTimeout(() => {
      for (const button of form.querySelectorAll('button[type="submit"]')) button.disabled = true;
    });
  });
}
