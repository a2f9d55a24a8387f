// The calculator page: one <divload-calculator> (divload-calculator.js: the form, its
// checks, the plan and its charts, for any model) and a chooser of the models that
// divload's manifest lists. It knows no model.
import { manifest } from './divload-calculator.js';

const $ = (id) => document.getElementById(id);
const calculator = document.querySelector('divload-calculator');

// The chooser follows the element, which may change model by itself (an imported document).
calculator.addEventListener('divload-model', (e) => {
  $('model').value = e.detail.name;
  $('model-paper').textContent = e.detail.paper;
  document.body.dataset.model = e.detail.name;
});

async function main() {
  const { version, models } = await manifest();
  $('version').textContent = version;
  $('model').replaceChildren(...models.map((m) => new Option(`${m.name}: ${m.title}`, m.name)));
  // Choosing the model shown again starts over from its example, as choosing another does.
  $('model').addEventListener('change', () => {
    if (calculator.getAttribute('model') === $('model').value) calculator.loadExample();
    else calculator.setAttribute('model', $('model').value);
  });
  await calculator.ready;
  document.body.dataset.ready = 'true';
}

// The element shows its own errors; the chooser's is about the list of models.
main().catch((e) => { $('model-paper').textContent = `The calculator could not start: ${e.message ?? e}`; });
